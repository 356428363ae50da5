#!/usr/bin/env bash
# rungs.sh - every ladder rung of every lab graded as a student's file, under the CPU emulator:
# the rung copied to NN-name/name.cu of a student's tree with the headers of the lab's solution
# folder beside it (as a student who copies a rung and its helpers would), compiled in the
# compile sandbox like any student's file (its own helper files with it), every correctness
# check OK and every speed check skipped. Rung K of every lab is graded in one tree.
#   tests/emu/rungs.sh        (MAKE and BUILD from the environment)
set -uo pipefail
build=${BUILD:-build}
work=$build/tests/rungs
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
    ${MAKE:-make} --no-print-directory grade EMU=1 STUDENT="$tree" LAB="$labs" GRADE_WHERE=0 \
        GRADE_DIR="$work/grade$k" SEED="${SEED:-}" >"$out" 2>&1
    status=$?
    n=$(echo "$labs" | tr , '\n' | wc -l)
    graded=$(grep -cE '^  [a-z_]+: [0-9]+/[0-9]+$' "$out")
    bad=$(grep -E ' (FAIL|ERROR) |error:' "$out" | head -5)
    if [ "$status" -eq 2 ] && [ "$graded" -eq "$n" ] && [ -z "$bad" ]; then
        pass=$((pass + 1))
        echo "ok   rung $k of labs $labs, each graded as a student's file: every correctness check OK"
    else
        fail=$((fail + 1))
        echo "FAIL rung $k of labs $labs: exit status $status, $graded of $n labs graded; $bad"
        tail -30 "$out"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
