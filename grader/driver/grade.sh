#!/usr/bin/env bash
# grade.sh - `make grade` with the grader's own exit status, for scripts.
#
#   grader/driver/grade.sh [make variables...]        e.g. grader/driver/grade.sh LAB=06 STUDENT=solutions
#
# make reports every failed recipe as status 2, so `make grade` can only say "full marks" (0)
# or "not" (2), and says so in a line of its own, which this script leaves out. The grader's
# status is 0 full marks, 1 a point was lost, 2 a check could not run and none failed; it is
# recorded in results.json, and this script exits with it.
# Stopped (Ctrl-C, SIGTERM, SIGHUP, `timeout`), it stops make and the grader with it and ends
# by the same signal.
set -uo pipefail
cd "$(dirname "$0")/../.."
grade_dir=build/grade build=build
for arg in "$@"; do
    case $arg in
    GRADE_DIR=*) grade_dir=${arg#GRADE_DIR=} ;;
    BUILD=*) build=${arg#BUILD=}; [ "$grade_dir" = build/grade ] && grade_dir=$build/grade ;;
    esac
done
rm -f "$grade_dir/results.json"
# make runs in the background and this script waits for it, so that a signal to this script
# is acted on at once (bash runs a trap only once the command in the foreground has ended).
# The stop goes to make as SIGTERM, which make passes on to the grader, which ends everything
# it started (grader/wire/stop.h); then this script ends by the signal it got.
stop() {
    trap - "$1"
    kill -TERM $(jobs -p) 2>/dev/null
    exec 4>&- # (make's filter below ends once make and what it started are gone)
    wait
    kill -s "$1" $$
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP
# make closes every grade that lost a point with a line of its own ("make: *** [Makefile:N:
# grade] Error 1", "make[1]: ..." when this runs under another make): the status below says it,
# and the line names the grader's Makefile, so it is left out of make's messages (that exact line
# only; every other line passes, as it comes).
exec 4> >(sed -u -E '/^make(\[[0-9]+\])?: \*\*\* \[[^]]*: grade\] Error [0-9]+$/d' >&2)
filter=$!
${MAKE:-make} --no-print-directory grade "$@" 2>&4 &
wait $!
made=$?
exec 4>&-
wait "$filter" 2>/dev/null
# The grader's own status, read from its report by its own JSON parser.
status=$([ -f "$grade_dir/results.json" ] && "$build/host/grade-driver" --status-of "$grade_dir/results.json")
# No report at all: the grader did not get to grade anything (build of the driver, no toolkit).
exit "${status:-$(( made == 0 ? 0 : 2 ))}"
