#!/usr/bin/env bash
# batch.sh - grade a folder of submissions, one after another, into one gradebook.
#
#   make grade-batch SUBMISSIONS=dir [LAB=...] [SEED=...]
#
# Each subfolder of SUBMISSIONS is one student's tree laid out like labs/ (NN-name/name.cu);
# labs a student did not submit are graded from the untouched skeleton. Every submission
# gets the same hidden-case seed (printed), so a regrade of one student reproduces it. Writes
# build/batch/<student>.json (the full report), <student>.txt (what the student would have
# seen) and build/batch/gradebook.csv (student, one column per lab, total, max, exit status).
set -uo pipefail
subs=${1:?usage: batch.sh SUBMISSIONS_DIR}
make_cmd=${MAKE:-make}
out=${BUILD:-build}/batch
mkdir -p "$out"
[ -d "$subs" ] || { echo "error: $subs is not a folder of submissions" >&2; exit 2; }
seed=${SEED:-$(printf '0x%016x' "$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')")}
echo "Grading every submission in $subs with hidden-case seed $seed."

book=$out/gradebook.csv
header_written=0
for dir in "$subs"/*/; do
    student=$(basename "$dir")
    tree=$out/trees/$student
    rm -rf "$tree"
    mkdir -p "$tree"
    # Start from the skeletons, then lay the student's files over them: a lab left out is
    # graded as the untouched skeleton (correct, too slow), never as missing.
    cp -r labs/. "$tree"/
    cp -r "$dir". "$tree"/ 2>/dev/null
    MAKE=$make_cmd grader/grade.sh STUDENT="$tree" SEED="$seed" LAB="${LAB:-}" \
        BUILD="${BUILD:-build}" >"$out/$student.txt" 2>&1
    status=$?
    cp "${BUILD:-build}/grade/results.json" "$out/$student.json" 2>/dev/null
    total=$(sed -n 's/^Score: \([0-9]*\)\/\([0-9]*\)$/\1,\2/p' "$out/$student.txt")
    labs=$(grep -E '^  [a-z_]+: [0-9]+/[0-9]+$' "$out/$student.txt" | sed 's/^  //')
    if [ $header_written -eq 0 ]; then
        echo "student,$(echo "$labs" | cut -d: -f1 | paste -sd,),total,max,exit_status" >"$book"
        header_written=1
    fi
    echo "$student,$(echo "$labs" | sed 's/^[^:]*: \([0-9]*\)\/.*/\1/' | paste -sd,),${total:-0,0},$status" >>"$book"
    printf '%-24s %s (exit %d)\n' "$student" "${total:-no score}" "$status"
done
echo "Gradebook: $book"
