#!/usr/bin/env bash
# emu_grade.sh - grade a tree of labs under the CPU emulator and demand what CI must see:
# every correctness check of every lab OK, every speed check SKIP, and exit status 2.
#   tests/emu_grade.sh STUDENT_DIR       (MAKE and BUILD from the environment)
set -uo pipefail
tree=$1
dir=${BUILD:-build}/grade-emu-$(basename "$tree")
out=$dir.txt
${MAKE:-make} --no-print-directory grade EMU=1 STUDENT="$tree" GRADE_DIR="$dir" SEED="${SEED:-}" >"$out" 2>&1
status=$?
labs=$(ls -d grader/labs/[0-9][0-9]-* | wc -l)
graded=$(grep -cE '^  [a-z_]+: [0-9]+/[0-9]+$' "$out")
bad=$(grep -E ' (FAIL|ERROR) ' "$out")
oks=$(grep -cE ' OK    \(' "$out")
skips=$(grep -cE ' SKIP  \(.*skipped: CPU emulation' "$out")
problems=""
[ "$status" -eq 2 ] || problems+="exit status $status, expected 2 (speed skipped). "
[ "$graded" -eq "$labs" ] || problems+="$graded of $labs labs graded. "
[ -z "$bad" ] || problems+="checks failed: $bad. "
[ "$skips" -ge "$labs" ] || problems+="only $skips speed checks skipped. "
if [ -n "$problems" ]; then
    echo "FAIL emulated grading of $tree: $problems"
    tail -40 "$out"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "ok   emulated grading of $tree: $oks correctness checks OK in $labs labs, $skips speed checks skipped ($(grep '^Hidden\|seed' "$out" | head -1 | grep -o 'seed 0x[0-9a-f]*'))"
