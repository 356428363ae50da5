#!/usr/bin/env bash
# pristine.sh - grader/batch/pristine_skeletons.sh gives the workbook's own skeletons whatever
# the checkout's labs/ holds: in a clone of this checkout (the history is the repository's),
# an untouched lab is copied, an edited one is taken from the history with one note, and with
# no history that holds it the script stops and says how to restore the file.
#   tests/batch/pristine.sh
set -u
top=$(pwd)
. "$top/tests/result.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$top" "$tmp/wb" || { echo "FAIL cannot clone the checkout"; exit 1; }
cd "$tmp/wb"
# the committed skeletons (the clone's labs/ is the repository's)
while read -r want rel; do
    cp "labs/$rel" "$tmp/want-$(echo "$rel" | tr / _)"
done <labs/skeletons.sha256
echo '__global__ void instructors_own() {}' >>labs/01-coalescing/coalescing.cu
cp solutions/06-transpose/transpose.cu labs/06-transpose/transpose.cu
out=$("$top"/grader/batch/pristine_skeletons.sh "$tmp/p1" 2>&1); rc=$?
result "the script succeeds with two labs edited" $rc
same=0
while read -r want rel; do
    cmp -s "$tmp/p1/$rel" "$tmp/want-$(echo "$rel" | tr / _)" || same=1
done <labs/skeletons.sha256
result "every skeleton it gives is the recorded one, edited labs too" $same
notes=$(echo "$out" | grep -c '^note: labs/0[16]-.* differs from the workbook.s skeleton')
[ "$notes" = 2 ] && [ "$(echo "$out" | grep -c .)" = 2 ]
result "one note for each edited lab, and nothing else (got: $out)" $?
rm -rf .git
out=$("$top"/grader/batch/pristine_skeletons.sh "$tmp/p2" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'labs/01-coalescing/coalescing.cu is not the workbook.s skeleton' &&
    echo "$out" | grep -q 'git checkout -- labs/01-coalescing/coalescing.cu'
result "without a history that holds it: stops, names the file and how to restore it" $?
results
