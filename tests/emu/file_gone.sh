#!/usr/bin/env bash
# file_gone.sh - a student's file deleted after a build is graded as missing, never by the object
# the earlier build left: lab 01's skeleton in a tree of its own, graded under the CPU emulator,
# then its file removed and the tree graded again: every check fails with the file named where
# it was expected, no check is OK, and the build's line says the lab did not build. And two trees
# never built: one without the file (graded as not found, in the grader's words, never make's
# "No rule to make target"), one whose file is a link to nothing (graded as a build that failed,
# the compile sandbox's words naming the link). The report folder after the second run holds
# no check's log of the first (a lab's files are all from its latest grading), and a lab not
# graded then keeps its own.
#
#   tests/emu/file_gone.sh      (MAKE and BUILD from the environment; after make emu-runners)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
# a lab's line with no GPU: its correctness checks, speed not graded (no points to give)
NOT_GRADED='speed not graded \(no GPU\)'
cd "$(dirname "$0")/../.."
work=${BUILD:-build}/file-gone-test
. tests/result.sh
grade() { # NAME [TREE]: make grade of the tree ($work/tree), its output in $work/NAME.txt
    ${MAKE:-make} --no-print-directory grade EMU=1 LAB=01 STUDENT="${2:-$work/tree}" GRADE_DIR="$work/grade" \
        GRADE_WHERE=0 SEED=0x1234 >"$work/$1.txt" 2>&1
}
rm -rf "$work" && mkdir -p "$work/tree" && cp -r labs/01-coalescing "$work/tree/"
grade built
grep -qE "^  coalescing: ([0-9]+/[0-9]+.*|.*correctness [0-9]+ of [0-9]+ checks passed; $NOT_GRADED)\$" "$work/built.txt" && grep -q ' OK ' "$work/built.txt" &&
    [ -e "$work/grade/coalescing.0.log" ]
result "the skeleton, built and graded (its checks' logs written)" $? "see $work/built.txt"
rm "$work/tree/01-coalescing/coalescing.cu"
# (a lab not graded in the next run: its file from an earlier one stays)
echo "banks, an earlier run" >"$work/grade/banks.0.log"
# (and the WHERE line and count of an earlier run of lab 01, which this one does not make)
mkdir -p "$work/grade/coalescing.where"
echo "an earlier count" >"$work/grade/coalescing.where/counts.tsv"
echo "an earlier WHERE" >"$work/grade/coalescing.where.txt"
grade gone
grep -qF "your file was not found: expected it at $work/tree/01-coalescing/coalescing.cu" "$work/gone.txt" &&
    grep -qE "^  coalescing: (0/[0-9]+, not started: the file is missing.*|not started: the file is missing, so it earns nothing .*; correctness 0 of [0-9]+ checks passed; $NOT_GRADED)\$" "$work/gone.txt" && ! grep -q ' OK ' "$work/gone.txt"
result "its file deleted: graded as not found and not started, 0 points, no check OK" $? "see $work/gone.txt"
grep -q 'coalescing .*did not build: your file is missing' "$work/gone.txt"
result "... and the build's line says the lab did not build" $? "see $work/gone.txt"
left=$(cd "$work/grade" && ls coalescing.[0-9]*.log coalescing.[0-9]*.records coalescing.harness.log \
    coalescing.where.txt coalescing.where/counts.tsv 2>/dev/null | head -3 | tr '\n' ' ')
[ -s "$work/grade/coalescing.build.log" ] && [ -z "$left" ] && [ -s "$work/grade/banks.0.log" ]
result "... no check's log of the run before is left to read as this one's (other labs' kept)" $? \
    "left: ${left:-none}; see $work/grade"
mkdir -p "$work/never/01-coalescing"
# (a WHERE folder that is a link: what it points to is not the report folder's, and stays)
rm -rf "$work/grade/coalescing.where" && mkdir -p "$work/outside" && echo keep >"$work/outside/keep.txt"
ln -s "$(cd "$work/outside" && pwd)" "$work/grade/coalescing.where"
grade never "$work/never"
[ -s "$work/outside/keep.txt" ]
result "... a WHERE folder that is a link to another folder: nothing there removed" $? "$work/outside/keep.txt is gone"
grep -qF "your file was not found: expected it at $work/never/01-coalescing/coalescing.cu" "$work/never.txt" &&
    grep -qE "^  coalescing: (0/[0-9]+, not started: the file is missing.*|not started: the file is missing, so it earns nothing .*; correctness 0 of [0-9]+ checks passed; $NOT_GRADED)\$" "$work/never.txt" && ! grep -q 'No rule to make target' "$work/never.txt"
result "a tree never built, its file missing: graded as not found (not make's error)" $? "see $work/never.txt"
ln -s "$work/nowhere.cu" "$work/never/01-coalescing/coalescing.cu"
grade dangling "$work/never"
grep -q 'coalescing.cu is a symbolic link' "$work/dangling.txt" && grep -q 'build failed' "$work/dangling.txt" &&
    grep -qE "^  coalescing: (0/[0-9]+|correctness 0 of [0-9]+ checks passed; $NOT_GRADED)\$" "$work/dangling.txt" && ! grep -qE 'No rule to make target|was not found' "$work/dangling.txt"
result "... its file a link to nothing: the build failed, the link named" $? "see $work/dangling.txt"
rm -rf "$work"
results
