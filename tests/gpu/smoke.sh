#!/usr/bin/env bash
# smoke.sh - a short first look on a GPU machine: one lab, isolated, graded and benched, and
# the cheat cases of that lab. Logs in $OUT (or build/gpu-run).
#   tests/gpu/smoke.sh [LAB]   (default coalescing)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}
mkdir -p "$OUT"
lab=${1:-coalescing}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/smoke.txt"
make -j"$(nproc)" build/host/grade-driver runner-"$lab" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
make -j"$(nproc)" runner-"$lab" STUDENT=solutions >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
for who in solutions labs; do
    start=$(date +%s%N)
    grader/driver/grade.sh LAB="$lab" STUDENT=$who >"$OUT/grade-$who.txt" 2>&1
    echo "grade $who: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$OUT/smoke.txt"
    grep -E "speed|NOTE|Score" "$OUT/grade-$who.txt" | tee -a "$OUT/smoke.txt"
    cp build/grade/results.json "$OUT/results-$who.json"
done
cat build/grade/*.harness.log 2>/dev/null | tail -20 >"$OUT/harness-log-tail.txt"
