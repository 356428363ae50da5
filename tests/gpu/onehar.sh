#!/usr/bin/env bash
# onehar.sh - one harness process serves every lab of a student's grading (grader/harness/
# harness_labs.cu): how many CUDA processes a student costs now, how long a warm make grade
# takes, and that the checks that watch buffers and the hostile cases still get their verdicts.
#
#   tests/gpu/onehar.sh        (OUT=build/onehar, SEED=0x5eed1234, RUNS=3, CHEATS=1; GPU only)
#
# Builds (make all), then for the solutions (STUDENT=solutions) and the skeletons (labs/): one
# make grade to warm the build, then RUNS warm `GRADER_COSTS=1 make grade` runs, each its wall
# seconds, its `costs a student` line (the mark: 30 CUDA processes, one harness: 9 labs' student
# and reference workers and 11 fresh speed workers, where one harness per lab made 38), how many
# harness processes its labs' logs name (1), and its correctness checks passed (every one);
# then the GPU cheats of tests/gpu/regions.sh (tests/gpu/regions.sh cheats, into $OUT/regions),
# with the verdicts their headers expect. Ends in a table; logs under $OUT. Exits 1 when a mark
# is missed or a case fails. One command, some 6 to 8 minutes on an H200.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/onehar}
seed=${SEED:-0x5eed1234}
runs=${RUNS:-3}
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "onehar.sh: no GPU here" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
make -j"$(nproc)" all >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
rows=()
bad=0
for who in solutions skeletons; do
    student=$([ $who = solutions ] && echo solutions || echo labs)
    SEED=$seed make grade STUDENT="$student" >"$out/grade-$who-warmup.log" 2>&1
    for r in $(seq "$runs"); do
        t0=$(date +%s.%N)
        GRADER_COSTS=1 SEED=$seed make grade STUDENT="$student" >"$out/grade-$who-$r.log" 2>&1
        t1=$(date +%s.%N)
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
        mkdir -p "$out/$who-$r" && cp build/grade/results.json build/grade/*.harness.log "$out/$who-$r/" 2>/dev/null
        line=$(grep '^costs a student' "$out/grade-$who-$r.log" | tail -1)
        echo "$who run $r: ${wall} s; ${line:-no costs line}"
        procs=$(sed -nE 's/^costs a student: ([0-9]+) CUDA processes.*/\1/p' <<<"$line")
        harnesses=$(sed -nE 's/.*\(([0-9]+) harnesses and.*/\1/p' <<<"$line")
        # the labs each harness process served: "lab N of this harness" restarts at 1 in a fresh one
        firsts=$(cat "$out/$who-$r"/*.harness.log 2>/dev/null | grep -c '(lab 1 of this harness)')
        served=$(cat "$out/$who-$r"/*.harness.log 2>/dev/null | grep -c ' of this harness)')
        correct=$(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
c = [x for lab in j['labs'] for x in lab.get('checks', []) if x.get('kind') != 'speed']
print('%d/%d' % (sum(x.get('verdict') == 'OK' for x in c), len(c)))" "$out/$who-$r/results.json" 2>/dev/null)
        mark=ok
        if [ "${procs:-}" != 30 ] || [ "${harnesses:-}" != 1 ] || [ "$firsts" != 1 ] ||
            [ "$served" != 9 ] || [ -z "$correct" ] || [ "${correct%/*}" != "${correct#*/}" ]; then
            mark=MISSED
            bad=1
        fi
        rows+=("$(printf '%-10s %-3s %7s %6s %9s %11s   %-9s %s' "$who" "$r" "$wall" "${procs:--}" \
            "${harnesses:--}" "$firsts/$served" "${correct:--}" "$mark")")
    done
done
cheats=0
if [ "${CHEATS:-1}" = 1 ]; then # (CHEATS=0: the grades alone)
    OUT="$out/regions" tests/gpu/regions.sh cheats >"$out/cheats.txt" 2>&1
    cheats=$?
else
    echo "cheat not run (CHEATS=0)" >"$out/cheats.txt"
fi
[ $cheats = 0 ] || bad=1
echo
echo "== one harness a student ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); logs in $out)"
printf '%-10s %-3s %7s %6s %9s %11s   %-9s %s\n' run "#" wall_s procs harnesses fresh/labs correct \
    "mark (30 CUDA processes, 1 harness serving 9 labs, every correctness check OK)"
printf '%s\n' "${rows[@]}"
echo "GPU cheats (tests/gpu/regions.sh cheats): $([ $cheats = 0 ] && echo "all pass" || echo "FAILED, see $out/cheats.txt")"
grep -E '^cheat ' "$out/cheats.txt" | awk '{print "  " $0}'
exit $bad
