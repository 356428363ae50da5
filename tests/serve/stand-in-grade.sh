#!/usr/bin/env bash
# stand-in-grade.sh - the course server's tests' stand-in for make grade (SERVE_GRADE_CMD), in
# the cases that test something other than grading (serve_test.py's header says which, and why):
# a grading there costs a sleep, not the emulator. The cases that test grading (100 students at
# once, SIGKILL during 50 submissions, make grade cut off, make submit's report) grade with make
# grade itself.
#
#   stand-in-grade.sh TREE LAB OUT      (STANDIN_SLEEP from the environment)
#
# It sleeps, then prints a report that names the SHA-256 of the lab's file it was given (so that
# a test can see whose report it is), writes OUT/results.json, and exits 0, or 2 when the file says FAIL.
set -u
tree=$1 lab=$2 out=$3
file=$(ls "$tree"/"$lab"-*/*.cu | head -n 1)
sha=$(sha256sum < "$file" | cut -c1-64)
sleep "${STANDIN_SLEEP:-0.05}"
echo "stand-in report: lab $lab, file $sha, helpers $(find "$tree" -type f | wc -l)"
failed=$(grep -c FAIL "$file")
folder=$(basename "$(dirname "$file")")
score=$((failed ? 0 : 5)) verdict=$([ "$failed" -eq 0 ] && echo OK || echo FAIL)
# results.json as the grader writes it, in the fields the exports read: one lab, a speed check
printf '{"schema": 1, "mode": "gpu", "labs": [{"lab": "%s", "number": "%s", "score": %d, "max": 5, "built": true, "checks": [{"name": "speed: stand-in", "kind": "speed", "verdict": "%s", "message": "the stand-in says %s", "detail": "", "points": 5, "earned": %d}]}], "score": %d, "max": 5, "correct_passed": 1, "correct_checks": 1, "speed_graded": true, "tamper_proof": true, "seed": "0x5eed", "exit_status": %d}\n' \
    "${folder#*-}" "$lab" $score "$verdict" "$verdict" $score $score $((failed ? 1 : 0)) > "$out/results.json"
[ "$failed" -eq 0 ] && exit 0 || exit 2
