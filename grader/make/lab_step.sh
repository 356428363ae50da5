#!/usr/bin/env bash
# lab_step.sh - TRUSTED: how one lab's build steps run in make grade and make bench
# (grader/make/grade.mk puts it in those steps' .SHELLFLAGS alone). make runs each line of such
# a step's recipe as
#
#   /bin/bash grader/make/lab_step.sh KIND MARK TARGET -c LINE
#
# KIND says whose piece TARGET is: grader (the lab's harness, reference and their objects),
# student (the student's object, compiled and vetted in the compile sandbox), where (under a
# GPU, the CPU emulator's build of the lab for make grade's WHERE line) or steps (make bench's
# ladder rungs). MARK is the lab's name in this run's build folder (GRADE_BUILT/NAME): the line's
# output goes to MARK.build.log, never to the terminal.
#
# A line that fails does not stop make: TARGET is removed (nothing half made is left to look
# built), MARK.KIND-failed records it, and every later line of the lab's pieces that depend on
# it is skipped (and its target removed): after a grader piece fails, every piece of the lab;
# after the student's, the rest of the student's object; after a WHERE piece, the other WHERE
# pieces. The other labs build on. make then writes each lab's status from what is there
# (grader/make/lab_status.sh), and the driver grades it: a lab whose grader pieces failed is an error
# of this machine, a student's file that failed is the student's FAIL, and one whose WHERE
# build failed is graded all the same (its WHERE line says the count could not be made).
#
# Stopped (SIGINT, SIGTERM, SIGHUP: grader/wire/stop.h's contract), it ends the line's processes,
# which run in a process group of their own (a compiler, the compile sandbox), within the
# contract's 2 seconds, and then itself by the same signal.
set -u
kind=$1 mark=$2 target=$3
shift 3 # leaves -c LINE
failed() { [ -e "$mark.$1-failed" ]; }
skip=
case $kind in
grader) failed grader && skip=1 ;;
student) { failed grader || failed student; } && skip=1 ;;
where) failed where && skip=1 ;;
steps) failed grader && skip=1 ;;
*) echo "lab_step.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac
if [ -n "$skip" ]; then
    rm -f -- "$target"
    exit 0
fi
# (its folder, made by the first line: no process for a folder already there)
[ -d "${mark%/*}" ] || mkdir -p -- "${mark%/*}" || exit 2

set -m # the line in a process group of its own, which a stop ends whole
/bin/bash "$@" >>"$mark.build.log" 2>&1 </dev/null &
line=$!
stop() { # SIGNAL
    trap '' INT TERM HUP
    disown -a # (no "Terminated" notice: make says what was stopped)
    kill -TERM -- "-$line" 2>/dev/null
    kill -CONT -- "-$line" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 -- "-$line" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$line" 2>/dev/null
    trap - "$1"
    kill -"$1" $$
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP
wait "$line"
status=$?
[ "$status" = 0 ] && exit 0
rm -f -- "$target"
: >"$mark.$kind-failed"
exit 0
