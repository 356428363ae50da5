#!/usr/bin/env bash
# build_labs.sh - TRUSTED: the build step of make grade and make bench. Builds the grader's own
# pieces, then each selected lab (several at once), printing a line per lab as it finishes;
# then, given a command after --, becomes that command (the driver, which grades and builds
# nothing) with `--built DIR` added: DIR holds what the build left for it.
#
#   grader/build/build_labs.sh --driver EXE --lab "LIST" --under DIR --student-objs DIR [--bench]
#                        [VAR=value ...] [-- COMMAND ...]
#
# --lab is LAB= as the driver reads it (grader/plan/lab_select.h: `grade-driver --list-labs`).
# VAR=value settings (BUILD, MODE, EMU, STUDENT) go to every make started here. The build's
# folder is DIR/.build.<this script's pid>, this run's own; per lab it holds <lab>.build.log
# (every line the build printed) and <lab>.status, one word and the lab's build time in s:
#   ok       everything built
#   student  the grader's pieces built, the student's object did not (the file is missing,
#            did not compile, or grader/build/vet.sh rejected it: the log says which)
#   refused  (the CPU emulator) the student's file is valid CUDA that uses a feature the
#            emulator cannot run: emu-nvcc's line "cuda-emu: refused: ..." in the log names
#            it; the driver, under emulation alone, grades it "could not run", never FAIL
#   grader   the lab's own pieces (harness, reference) did not build: not the student's doing
#   steps    (--bench) a ladder rung did not build
# The driver moves the logs into its report folder and removes the build's folder.
# Exit status (without a command): 0 when every lab has a status, whatever it says; 2 when the
# grader's shared pieces did not build (nothing can be graded; the log's last lines are shown).
#
# Several runs in one checkout take turns here (they share the grader's objects): the lock is
# $BUILD/.build-lock, held by this script alone (each job it starts closes it first, and make
# never gets it), and let go before the command runs.
# Stopped (SIGINT, SIGTERM, SIGHUP: grader/run/stop.h's contract), it ends every make it started,
# each in a process group of its own, within the contract's 2 seconds, and then itself by the
# same signal.
set -u
driver= lab= under= objs= bench=0
vars=()
while [ $# -gt 0 ]; do
    case $1 in
        --driver) driver=$2; shift 2 ;;
        --lab) lab=$2; shift 2 ;;
        --under) under=$2; shift 2 ;;
        --student-objs) objs=$2; shift 2 ;;
        --bench) bench=1; shift ;;
        --) shift; break ;;
        *=*) vars+=("$1"); shift ;;
        *) echo "build_labs.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$driver" ] && [ -n "$under" ] && [ -n "$objs" ] || { echo "build_labs.sh: --driver, --under and --student-objs are required" >&2; exit 2; }
labs=$("$driver" --list-labs --lab "$lab") || exit 2
n=$(echo $labs | wc -w)
into=$under/.build.$$
rm -rf "$into" && mkdir -p "$into" || exit 2

# The makes started here run jobs of their own: the settings of the make that ran this script
# go on (its command-line variables, -s, -k ...), its job server and -j do not.
flags=
for f in ${MAKEFLAGS:-}; do
    case $f in -j* | --jobserver* | --jobs*) ;; *) flags="$flags $f" ;; esac
done
export MAKEFLAGS="$flags"
unset MFLAGS
cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
# Labs at once, two jobs each: a lab is four or five compiles, then three links.
at_once=$((cpus / 2))
[ "$at_once" -ge 1 ] || at_once=1
[ "$at_once" -le "$n" ] || at_once=$n
mk() { make -s --no-print-directory "$@" "${vars[@]}" 9>&-; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Every background job below gets a process group of its own (job control), which a stop ends
# whole: the make, its compilers, the compile sandbox (which dies with its parent).
set -m
stop() { # SIGNAL
    trap '' INT TERM HUP
    local g groups
    groups=$(jobs -p)
    disown -a # (no "Terminated" notice per job: the stop says what happened)
    for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; kill -CONT -- "-$g" 2>/dev/null; done
    for _ in 1 2 3 4 5; do
        for g in $groups; do kill -0 -- "-$g" 2>/dev/null && break; g=; done
        [ -z "${g:-}" ] && break
        sleep 0.1
    done
    for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
    rm -rf "$into"
    trap - "$1"
    kill -"$1" $$
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP

build_dir=build
for v in "${vars[@]}"; do case $v in BUILD=*) build_dir=${v#BUILD=} ;; esac; done
if command -v flock >/dev/null 2>&1 && mkdir -p "$build_dir" && exec 9>"$build_dir/.build-lock"; then
    if ! flock -n 9; then
        echo "Another build is using $build_dir; waiting for it to finish..."
        flock 9 & wait $! || exit 2 # (in the background: a stop is taken while waiting)
        flock -n 9 || exit 2
    fi
fi

t0=$(now)
echo "Building the grader and $n lab$([ "$n" = 1 ] || echo s) ($cpus cores: $at_once lab$([ "$at_once" = 1 ] || echo s) at a time)"
{ exec 9>&-; mk -j"$cpus" grader-pieces >"$into/grader.build.log" 2>&1; } &
if ! wait $!; then
    echo "The grader's own pieces did not build (this is not your code). The last lines:" >&2
    tail -15 "$into/grader.build.log" | sed 's/^/  | /' >&2
    cp "$into/grader.build.log" "$under/grader.build.log" 2>/dev/null &&
        echo "Full log: $under/grader.build.log. Run make doctor: it checks the toolkit and compilers." >&2
    rm -rf "$into"
    exit 2
fi
printf '  %-7s %-12s %6s s\n' "" grader "$(since "$t0")"

build_one() { # LAB: the lab's pieces, then the student's object, then (bench) the rungs
    exec 9>&- # (run in a job of its own: only this script holds the build lock)
    local l=$1 s log st
    s=$(now)
    log=$into/$l.build.log
    if ! mk -k -j2 lab-grader-"$l" >"$log" 2>&1; then st=grader
    elif ! mk -j2 "$objs/$l/student.so" >>"$log" 2>&1; then
        st=student
        grep -q '^cuda-emu: refused: ' "$log" && st=refused
    elif [ "$bench" = 1 ] && ! mk -k -j2 bench-steps-"$l" >>"$log" 2>&1; then st=steps
    else st=ok; fi
    echo "$st $(since "$s")" >"$into/$l.status.tmp" && mv "$into/$l.status.tmp" "$into/$l.status"
}

said=" "
done_n=0
report() { # print each lab whose status appeared since the last call
    local l st secs why
    for l in $labs; do
        case $said in *" $l "*) continue ;; esac
        [ -f "$into/$l.status" ] || continue
        read -r st secs <"$into/$l.status"
        said="$said$l "
        done_n=$((done_n + 1))
        case $st in
            ok) why= ;;
            student) why="  did not build: your file is missing, did not compile or was rejected (grading says which)" ;;
            refused) why="  the CPU emulator cannot run a feature your file uses (grading says which; a GPU grades it)" ;;
            grader) why="  the lab's own pieces did not build (not your code: grading shows why)" ;;
            steps) why="  a ladder rung did not build (the table shows why)" ;;
        esac
        printf '  [%d/%d] %-12s %6s s%s\n' "$done_n" "$n" "$l" "$secs" "$why"
    done
}
pending=($labs)
running=0
while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
    while [ "$running" -lt "$at_once" ] && [ ${#pending[@]} -gt 0 ]; do
        build_one "${pending[0]}" &
        pending=("${pending[@]:1}")
        running=$((running + 1))
    done
    wait -n 2>/dev/null || running=1 # (no job left to wait for: the loop ends)
    running=$((running - 1))
    report
done
wait
report
echo "Built in $(since "$t0") s."
exec 9>&-
trap - INT TERM HUP
[ $# -gt 0 ] || exit 0
exec "$@" --built "$into"
