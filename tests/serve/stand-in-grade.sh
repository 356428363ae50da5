#!/usr/bin/env bash
# stand-in-grade.sh - the course server's tests' stand-in for make grade (SERVE_GRADE_CMD): what
# a grading costs the tests is a sleep, not the emulator's minutes for a hundred gradings.
#
#   stand-in-grade.sh TREE LAB OUT      (STANDIN_LOG, STANDIN_SLEEP from the environment)
#
# It appends "start LAB SHA PID" to STANDIN_LOG (every grading started, cut off or not), sleeps,
# then prints a report that names the SHA-256 of the lab's file it was given (so that a test can
# see whose report it is), writes OUT/results.json, and exits 0, or 2 when the file says FAIL.
set -u
tree=$1 lab=$2 out=$3
file=$(ls "$tree"/"$lab"-*/*.cu | head -n 1)
sha=$(sha256sum < "$file" | cut -c1-64)
echo "start $lab $sha $$" >> "${STANDIN_LOG:-/dev/null}"
sleep "${STANDIN_SLEEP:-0.05}"
echo "stand-in report: lab $lab, file $sha, helpers $(find "$tree" -type f | wc -l)"
failed=$(grep -c FAIL "$file")
printf '{"score": %d, "max": 5, "correct_passed": 1, "correct_checks": 1, "speed_graded": true}\n' \
    $((failed ? 0 : 5)) > "$out/results.json"
[ "$failed" -eq 0 ] && exit 0 || exit 2
