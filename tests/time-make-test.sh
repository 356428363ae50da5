#!/usr/bin/env bash
# tests/time-make-test.sh - `make test` (or GOAL=test-all: the full tier) timed as README.md
# writes it (no -j: either runs its suites side by side by itself), from a fresh clone of this
# checkout, nothing built. Prints the
# cores, the load before, the wall time, the CPU time of make test's own processes (user and
# system, of every process it waited for), the whole machine's busy CPU time while it ran
# (/proc/stat: user, nice and system; other work on the machine counts too: the difference is
# what others took), make test's last line and its exit status. A measurement, not a test: it exits with make test's status.
#
#   tests/time-make-test.sh [REV]        (default: HEAD; KEEP=1 keeps the clone and its log;
#                                         GOAL=test-all: the full tier)
#
# The packages some tests install (tests/packages.sh lists them) are best installed by an
# earlier run: their download and install are not the suite's time.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
rev=${1:-HEAD}
goal=${GOAL:-test}
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/time-make-test.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
busy() { awk '/^cpu / { print $2 + $3 + $4 }' /proc/stat; }
hz=$(getconf CLK_TCK)
git clone -q "$repo" "$work/tree" && git -C "$work/tree" checkout -q "$rev" || exit 1
echo "revision $(git -C "$work/tree" rev-parse --short HEAD), $(nproc) cores, before: $(uptime | sed 's/.*load/load/')"
c0=$(busy) t0=$(date +%s.%N)
TIMEFORMAT='%U %S'
{ time (cd "$work/tree" && make "$goal" >"$work/make-test.log" 2>&1); } 2>"$work/cpu.txt"
status=$?
own=$(awk '{ printf "%.0f", $1 + $2 }' "$work/cpu.txt")
t1=$(date +%s.%N) c1=$(busy)
wall=$(echo "$t1 - $t0" | bc)
printf 'make %s: %d min %02d s wall (%.0f s), its own CPU %s core-seconds, the machine busy %.0f, exit %d, after: %s\n' \
    "$goal" "$(echo "$wall / 60" | bc)" "$(echo "$wall % 60 / 1" | bc)" "$wall" "$own" "$(echo "($c1 - $c0) / $hz" | bc -l)" \
    "$status" "$(uptime | sed 's/.*load/load/')"
echo "last line: $(tail -1 "$work/make-test.log")"
[ "${KEEP:-0}" = 1 ] && echo "log: $work/make-test.log"
exit $status
