#!/usr/bin/env bash
# grade.sh - `make grade` with the grader's own exit status, for scripts.
#
#   grader/grade.sh [make variables...]        e.g. grader/grade.sh LAB=06 STUDENT=solutions
#
# make reports every failed recipe as status 2, so `make grade` can only say "full marks" (0)
# or "not" (2). The grader's status is 0 full marks, 1 a point was lost, 2 a check could not
# run and none failed; it is recorded in results.json, and this script exits with it.
set -uo pipefail
cd "$(dirname "$0")/.."
grade_dir=build/grade
for arg in "$@"; do
    case $arg in
    GRADE_DIR=*) grade_dir=${arg#GRADE_DIR=} ;;
    BUILD=*) [ "$grade_dir" = build/grade ] && grade_dir=${arg#BUILD=}/grade ;;
    esac
done
rm -f "$grade_dir/results.json"
${MAKE:-make} --no-print-directory grade "$@"
made=$?
status=$(sed -n 's/^  "exit_status": \([0-9]*\),\{0,1\}$/\1/p' "$grade_dir/results.json" 2>/dev/null)
# No report at all: the grader did not get to grade anything (build of the driver, no toolkit).
exit "${status:-$(( made == 0 ? 0 : 2 ))}"
