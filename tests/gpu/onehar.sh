#!/usr/bin/env bash
# onehar.sh - one harness process serves every lab of a student's grading (grader/harness/
# harness_labs.cu): how many CUDA processes a student costs now, how long a warm make grade
# takes, and that the checks that watch buffers and the hostile cases still get their verdicts.
#
#   tests/gpu/onehar.sh        (OUT=build/onehar, SEED=0x5eed1234, RUNS=3, CHEATS=1; GPU only)
#
# Builds (make all), then for the solutions (STUDENT=solutions) and the skeletons (labs/): one
# make grade to warm the build, then RUNS warm `GRADER_COSTS=1 make grade` runs, each its wall
# seconds, its `costs a student` line, how many harness processes its labs' logs name (1), how
# many labs kept the reference's worker of the lab before (8: every lab but the first), its
# correctness checks passed (every one), and for the solutions the self-check: every speed
# check's "N.NNx the reference" (the solutions timed against the reference) within 0.98-1.02.
# The mark, exact: 1 harness + 9 student's workers (each lab's, for its correctness checks) +
# 1 reference's worker (one for every lab: kept at each lab's end, told to load the next lab's
# object) + S (a fresh student's worker for each speed check that ran: 11) + A (another fresh
# one for each time a speed check timed the student again in a new process: beside the
# reference again, its slowdown past the lab's noise, harness_speed.cu: speed.stages.again_s > 0
# in results.json; or phase 1 again on a throttled clock: speed.gpu_watch_timed_again) = 22 + A. (The
# earlier 30 workers where 9 + 9 + 11 = 29 was such an A = 1: the reduction lab's speed check,
# its phase 1 held down by the power cap and timed once more in a fresh process, as its verdict's
# note said in every run; one harness a lab made 38, one harness with a reference's worker a lab
# 30 + A.) The table's `self` column: the speed checks' ratios of the solutions, count:min-max
# (a `!` when one is outside 0.98-1.02). Then the GPU cheats of tests/gpu/
# regions.sh (tests/gpu/regions.sh cheats, into $OUT/regions), with the verdicts their headers
# expect. Ends in a table; logs under $OUT. Exits 1 when a mark is missed or a case fails. One
# command, some 6 to 8 minutes on an H200.
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
        harnesses=$(sed -nE 's/.*\(([0-9]+) harness(es)? and.*/\1/p' <<<"$line")
        # the labs whose reference's worker was the lab before's (harness_labs.cu's log line)
        kept=$(cat "$out/$who-$r"/*.harness.log 2>/dev/null | grep -c "reference's worker kept from the lab before (process")
        # the labs each harness process served: "lab N of this harness" restarts at 1 in a fresh one
        firsts=$(cat "$out/$who-$r"/*.harness.log 2>/dev/null | grep -c '(lab 1 of this harness)')
        served=$(cat "$out/$who-$r"/*.harness.log 2>/dev/null | grep -c ' of this harness)')
        # correct: passed/run correctness checks; S and A (the mark's, above), from results.json
        # (a speed check's figures are its "speed" object: stages.again_s, gpu_watch_timed_again)
        read -r correct S A < <(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
c = [x for lab in j['labs'] for x in lab.get('checks', []) if x.get('kind') != 'speed']
sp = [x['speed'] for lab in j['labs'] for x in lab.get('checks', [])
      if x.get('kind') == 'speed' and isinstance(x.get('speed'), dict)]
print('%d/%d %d %d' % (sum(x.get('verdict') == 'OK' for x in c), len(c), len(sp),
                       sum(x.get('stages', {}).get('again_s', 0) > 0 for x in sp) +
                       sum(x.get('gpu_watch_timed_again') is True for x in sp)))" "$out/$who-$r/results.json" 2>/dev/null)
        want=$((1 + 9 + 1 + ${S:-0} + ${A:-0}))
        # the self-check (solutions): every "N.NNx the reference" within 0.98-1.02
        self=-
        if [ $who = solutions ]; then
            self=$(grep -oE '[0-9]+\.[0-9]+x the reference' "$out/grade-$who-$r.log" | awk '
                { v = $1 + 0; n++; if (v < 0.98 || v > 1.02) off++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
                END { if (n == 0) print "none"; else printf "%d:%.2f-%.2f%s", n, lo, hi, off ? "!" : "" }')
        fi
        mark=ok
        if [ "${procs:-}" != "$want" ] || [ "${S:-0}" != 11 ] || [ "${harnesses:-}" != 1 ] ||
            [ "$firsts" != 1 ] || [ "$served" != 9 ] || [ "$kept" != 8 ] || [ -z "${correct:-}" ] ||
            [ "${correct%/*}" != "${correct#*/}" ] ||
            { [ $who = solutions ] && { [ "$self" = none ] || [ "${self%!}" != "$self" ]; }; }; then
            mark=MISSED
            bad=1
        fi
        rows+=("$(printf '%-10s %-3s %7s %6s %8s %9s %11s %5s   %-9s %-16s %s' "$who" "$r" "$wall" \
            "${procs:--}" "22+${A:-?}" "${harnesses:--}" "$firsts/$served" "$kept" "${correct:--}" \
            "$self" "$mark")")
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
printf '%-10s %-3s %7s %6s %8s %9s %11s %5s   %-9s %-16s %s\n' run "#" wall_s procs want harnesses \
    fresh/labs kept correct "self n:min-max" \
    "mark (procs = want = 22 + A, 11 speed checks, 1 harness serving 9 labs, the reference's worker kept by 8, every correctness check OK, solutions' ratios 0.98-1.02)"
printf '%s\n' "${rows[@]}"
echo "GPU cheats (tests/gpu/regions.sh cheats): $([ $cheats = 0 ] && echo "all pass" || echo "FAILED, see $out/cheats.txt")"
grep -E '^cheat ' "$out/cheats.txt" | awk '{print "  " $0}'
exit $bad
