#!/usr/bin/env bash
# lab_status.sh - TRUSTED: the lines make grade and make bench print while they build, and the
# status of each lab's build that the driver reads (grader/make/grade.mk runs it; it builds nothing).
#
#   grader/make/lab_status.sh begin BUILT N           this run's build folder; "Building the grader
#                                                 and N labs"
#   grader/make/lab_status.sh grader BUILT            the grader's own pieces are built: "done at T s"
#   grader/make/lab_status.sh lab BUILT NAME N HARNESS REFERENCE STUDENT   one lab is: its status,
#                                                 "[K/N] NAME done at T s"
#   grader/make/lab_status.sh end BUILT               "Built in T s."
#
# Each T counts from make's start (BUILT/.t0, which grader/make/grade.mk writes as make reads
# it): the lines are when each stage finished, and the last one how long the whole build took.
#
# BUILT is the run's own build folder (GRADE_DIR/.build.<make's pid>). A lab's status,
# BUILT/NAME.status, is one word and the seconds since the build began:
#   ok       everything built
#   student  the grader's pieces built, the student's object did not (the file is missing,
#            did not compile, or grader/make/vet.sh rejected it: NAME.build.log says which)
#   refused  (the CPU emulator) the student's file is valid CUDA that uses a feature the
#            emulator cannot run: emu-nvcc's line "cuda-emu: refused: ..." in the log names it;
#            the driver, under emulation alone, grades it "could not run", never FAIL
#   grader   the lab's own pieces (harness, reference) did not build: not the student's doing
#   steps    (make bench) a ladder rung did not build
# read from what is there and what grader/make/lab_step.sh recorded (NAME.KIND-failed). The driver
# moves the logs into its report folder and removes BUILT.
set -u
what=$1 built=$2
now() { date +%s.%N; }
since() { awk -v a="$(cat "$built/.begun" 2>/dev/null || now)" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
case $what in
begin)
    # a stopped run's folder (its make is gone) goes; a run beside this one keeps its own
    for old in "${built%.*}".*; do
        [ -d "$old" ] && [ "$old" != "$built" ] && ! kill -0 "${old##*.}" 2>/dev/null && rm -rf -- "$old"
    done
    # (the clock starts when make did: grader/make/grade.mk wrote BUILT/.t0 then)
    mkdir -p "$built" && { cat "$built/.t0" 2>/dev/null || now; } >"$built/.begun" || exit 2
    echo "Building the grader and $3 lab$([ "$3" = 1 ] || echo s) (the times: seconds since make started)"
    ;;
grader)
    printf '  %-18s done at %6s s\n' "the grader" "$(since)"
    ;;
lab)
    name=$3 n=$4 harness=$5 reference=$6 student=$7
    log=$built/$name.build.log
    if [ -e "$built/$name.grader-failed" ] || [ ! -f "$harness" ] || [ ! -f "$reference" ]; then st=grader
    elif [ ! -f "$student" ] || [ -e "$built/$name.student-failed" ]; then
        # (a step of the student's that failed this run: its file gone, say, while an object of
        # an earlier build is still there, which is not this file's and is never graded)
        st=student
        grep -q '^cuda-emu: refused: ' "$log" 2>/dev/null && st=refused
    elif [ -e "$built/$name.steps-failed" ]; then st=steps
    else st=ok; fi
    secs=$(since)
    case $st in
        ok) why= ;;
        student) why="  did not build: your file is missing, did not compile or was rejected (grading says which)" ;;
        refused) why="  the CPU emulator cannot run a feature your file uses (grading says which; a GPU grades it)" ;;
        grader) why="  the lab's own pieces did not build (not your code: grading shows why)" ;;
        steps) why="  a ladder rung did not build (the table shows why)" ;;
    esac
    # (labs finish side by side: one at a time counts itself and says so)
    exec 9>>"$built/.count"
    flock 9 2>/dev/null
    echo "$st $secs" >"$built/$name.status.tmp" && mv "$built/$name.status.tmp" "$built/$name.status"
    done_n=$(find "$built" -maxdepth 1 -name '*.status' | wc -l)
    printf '  [%d/%d] %-12s done at %6s s%s\n' "$done_n" "$n" "$name" "$secs" "$why"
    ;;
end)
    echo "Built in $(since) s."
    ;;
*)
    echo "lab_status.sh: unknown step '$what'" >&2
    exit 2
    ;;
esac
