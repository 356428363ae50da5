#!/usr/bin/env bash
# rungs.sh - every ladder rung of every lab graded as a student's file, under the CPU emulator
# or on the GPU: the rung copied to NN-name/name.cu of a student's tree with the headers of the
# lab's solution folder beside it (as a student who copies a rung and its helpers would),
# compiled in the compile sandbox like any student's file (its own helper files with it), every
# correctness check OK; under the emulator every speed check skipped, on the GPU every speed
# check timed (a rung below its lab's mark fails its speed check: that is its place on the
# ladder, printed, not a failure here). Rung K of every lab is graded in one tree.
#   tests/emu/rungs.sh          under the CPU emulator (make test-rungs)
#   tests/emu/rungs.sh --gpu    on this machine's GPU (tests/gpu/run-all.sh)
#   (MAKE and BUILD from the environment)
set -uo pipefail
mode=emu
[ "${1:-}" = --gpu ] && mode=gpu
build=${BUILD:-build}
work=$build/tests/rungs-$mode
rm -rf "$work"
mkdir -p "$work"
pass=0 fail=0
max=$(ls solutions/*/steps/*.cu | sed 's#.*/\([0-9]*\)-[^/]*$#\1#' | sort -n | tail -1)
for k in $(seq 1 "$max"); do
    tree=$work/rung$k
    labs=""
    for f in solutions/[0-9][0-9]-*/steps/"$k"-*.cu; do
        [ -e "$f" ] || continue
        dir=$(echo "$f" | cut -d/ -f2) # 06-transpose
        name=${dir#*-}
        mkdir -p "$tree/$dir"
        cp "$f" "$tree/$dir/$name.cu"
        for h in solutions/"$dir"/*.cuh; do [ -e "$h" ] && cp "$h" "$tree/$dir/"; done
        labs=${labs:+$labs,}${dir%%-*}
    done
    [ -n "$labs" ] || continue
    out=$work/rung$k.txt
    emu=EMU=1
    [ "$mode" = gpu ] && emu=EMU=
    ${MAKE:-make} --no-print-directory grade $emu STUDENT="$tree" LAB="$labs" GRADE_WHERE=0 \
        GRADE_DIR="$work/grade$k" SEED="${SEED:-}" >"$out" 2>&1
    status=$?
    n=$(echo "$labs" | tr , '\n' | wc -l)
    # (a GPU: the lab's points; no GPU: its correctness checks, speed not graded)
    graded=$(grep -cE '^  [a-z_]+: ([0-9]+/[0-9]+|correctness [0-9]+ of [0-9]+ checks passed; speed not graded \(no GPU\))$' "$out")
    # a correctness check's FAIL or any ERROR is a failure; on the GPU a speed check may FAIL
    bad=$(grep -E ' (FAIL|ERROR) |error:' "$out" | grep -vE "^  speed[^ ]*:.* FAIL " | head -5)
    want=2                                           # (under the emulator: speed checks skipped)
    [ "$mode" = gpu ] && { [ "$status" -eq 0 ] || [ "$status" -eq 2 ]; } && want=$status
    if [ "$status" -eq "$want" ] && [ "$graded" -eq "$n" ] && [ -z "$bad" ]; then
        pass=$((pass + 1))
        echo "ok   rung $k of labs $labs, each graded as a student's file: every correctness check OK"
        [ "$mode" = gpu ] && grep -E '^  speed[^ ]*:' "$out" | sed 's/^/       /' 
    else
        fail=$((fail + 1))
        echo "FAIL rung $k of labs $labs: exit status $status, $graded of $n labs graded; $bad"
        tail -30 "$out"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
