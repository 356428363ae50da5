#!/usr/bin/env bash
# tests/emu/grade-times.sh -- how long emulated grading takes on this machine: the reference
# solutions and the skeletons, every lab, from a warm build, against the workbook's targets
# (each tree in at most 90 s, no check over 10 s); with --make-test, also the whole
# `make -j$(nproc) test` from that warm build (target: under 8 minutes). A measurement, not a
# test: it prints what it saw and exits 0 either way (1 only if grading or a test went wrong).
#
#   tests/emu/grade-times.sh [--make-test] [SEED]
#
# SEED (hex, as make grade takes it) fixes the hidden sizes, so runs can be compared; without
# it each run draws its own. The load of the machine counts: `uptime` is printed with the
# results.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
make_test=0
[ "${1:-}" = --make-test ] && { make_test=1; shift; }
seed=${1:-}
out=${BUILD:-build}/grade-times
mkdir -p "$out"
echo "warming the build (EMU=1 make runners for each tree) ..."
for tree in solutions labs; do
    make --no-print-directory runners EMU=1 STUDENT=$tree >/dev/null 2>&1
done
status=0
printf '%-10s %8s %8s  %s\n' tree wall "checks" "slowest check"
for tree in solutions labs; do
    log=$out/$tree.txt
    start=$(date +%s.%N)
    make --no-print-directory grade EMU=1 STUDENT=$tree ${seed:+SEED=$seed} >"$log" 2>&1
    rc=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    [ $rc -eq 2 ] || { echo "$tree: make grade exited $rc (2 expected: speed skipped)"; status=1; }
    grep -qE ' (FAIL|ERROR) ' "$log" && { echo "$tree: a check failed:"; grep -E ' (FAIL|ERROR) ' "$log"; status=1; }
    sum=$(grep -oE '\( *[0-9.]+s\)' "$log" | tr -d '()s ' | awk '{s += $1} END {printf "%.1f", s}')
    slowest=$(awk '/^== /{lab=$2} /\( *[0-9.]+s\)/{match($0,/\( *[0-9.]+s\)/); t=substr($0,RSTART+1,RLENGTH-3)+0; if (t > m) {m = t; what = "lab " lab ":" substr($0, 1, index($0, " ..") - 1)}} END {printf "%.1f s %s", m, what}' "$log")
    verdict=""
    awk -v w="$wall" 'BEGIN {exit !(w > 90)}' && verdict+=" [over 90 s]"
    awk -v s="${slowest%% s*}" 'BEGIN {exit !(s > 10)}' && verdict+=" [a check over 10 s]"
    printf '%-10s %7.1fs %7.1fs  %s%s\n' "$tree" "$wall" "$sum" "$slowest" "$verdict"
done
if [ $make_test = 1 ]; then
    start=$(date +%s.%N)
    make --no-print-directory -j"$(nproc)" test >"$out/make-test.txt" 2>&1
    rc=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    verdict=""
    awk -v w="$wall" 'BEGIN {exit !(w > 480)}' && verdict=" [over 8 minutes]"
    [ $rc -eq 0 ] || { verdict+=" [make test failed: exit $rc]"; status=1; }
    printf '%-10s %7.1fs  %s%s\n' "make test" "$wall" "warm build, -j$(nproc)" "$verdict"
fi
echo "seed: $(grep -ohE 'seed 0x[0-9a-f]+' "$out"/solutions.txt | head -1)  load: $(uptime | sed 's/.*load average: //')"
echo "logs: $out/{solutions,labs$([ $make_test = 1 ] && echo ,make-test)}.txt"
exit $status
