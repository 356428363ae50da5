#!/usr/bin/env bash
# tests/emu/cold-grade.sh -- `make grade` as a student first runs it on a machine with no GPU:
# from a fresh clone (nothing built), the skeletons graded under the CPU emulator. For each
# revision given, ROUNDS times, alternating revisions so that a change in the machine's load
# falls on both alike; per run the wall time, the build's part of it as make grade prints it
# ("Built in": from make's start until every lab is built), the whole machine's busy CPU time
# while it ran (/proc/stat: user, nice and system; other work on the machine counts too), the
# score, and the wall time of a second make grade in the same tree right after (warm: built). A measurement, not a test: it exits 0 either way
# (1 only if a clone or a checkout failed).
#
#   tests/emu/cold-grade.sh [REV ...]       (default: HEAD; ROUNDS=2, SEED=0x4815c315b3aef930)
#
# EMU=1 is set, so a machine with a GPU measures the emulator's path too.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)
rounds=${ROUNDS:-2}
seed=${SEED:-0x4815c315b3aef930}
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/cold-grade.XXXXXX")
trap 'rm -rf "$work"' EXIT
busy() { awk '/^cpu / { print $2 + $3 + $4 }' /proc/stat; }
hz=$(getconf CLK_TCK)
echo "$(nproc) cores, $(uptime | sed 's/.*load/load/')"
printf '%-12s %5s %8s %8s %9s  %-8s %8s\n' revision round wall built "busy CPU" score warm
for round in $(seq "$rounds"); do
    for rev in "${revs[@]}"; do
        tree=$work/tree
        rm -rf "$tree"
        git clone -q "$repo" "$tree" && git -C "$tree" checkout -q "$rev" || exit 1
        c0=$(busy) t0=$(date +%s.%N)
        (cd "$tree" && make grade EMU=1 SEED="$seed" >"$work/out.txt" 2>&1)
        t1=$(date +%s.%N) c1=$(busy)
        (cd "$tree" && make grade EMU=1 SEED="$seed" >"$work/warm.txt" 2>&1)
        t2=$(date +%s.%N)
        printf '%-12s %5s %7.1fs %7.1fs %8.1fs  %-8s %7.1fs\n' "$(git -C "$tree" rev-parse --short HEAD)" "$round" \
            "$(echo "$t1 - $t0" | bc)" "$(grep -o 'Built in [0-9.]*' "$work/out.txt" | awk '{ print $3 }')" \
            "$(echo "($c1 - $c0) / $hz" | bc -l)" "$(grep -o '^Score: [0-9/]*' "$work/out.txt" | cut -d' ' -f2)" \
            "$(echo "$t2 - $t1" | bc)"
    done
done
