#!/usr/bin/env bash
# roofline.sh - make roofline draws what make bench measured: from the workbook's recorded H200
# tables (FROM=h200) its roofs are the tables' own ceilings (lab 01's copy, lab 04's FMA peak),
# every lab on a roofline has its skeleton and reference on the chart, each variant's fraction
# of its roof is computed from its row; with no table it says what to run, exit status 2.
#
#   tests/docs/roofline.sh      (MAKE from the environment); run from the repository root
set -u
cd "$(dirname "$0")/../.."
make=${MAKE:-make}
fail=0
bad() { echo "FAIL roofline: $*"; fail=1; }
out=$($make -s --no-print-directory roofline FROM=h200 2>&1) || bad "make roofline FROM=h200 failed: $out"
bw=$(awk -F'\t' '$4 == "cudaMemcpy D2D" { printf "%.2f", $6 / 1000 }' labs/01-coalescing/bench-h200.tsv)
peak=$(awk -F'\t' '$4 == "FP32 FMA peak" { printf "%.1f", $6 / 1000 }' labs/04-ilp/bench-h200.tsv)
grep -q "^roofs: DRAM $bw TB/s (copy), FP32 FMA peak $peak TFLOP/s" <<<"$out" ||
    bad "expected the roofs $bw TB/s and $peak TFLOP/s from the tables; got: $(head -1 <<<"$out")"
for p in s01 r01 s03 r03 s04m r04m s04a r04a s07 r07 s09 r09; do
    grep -qE "^ *[0-9/]+ [|](.*[ /_])?$p([ /_]|$)" <<<"$out" || bad "the chart does not place $p"
done
# lab 09's reference: 49.134 TFLOP/s at n / 8 = 512 flop/B, under the flat roof: 49.134 / peak
want=$(awk -F'\t' -v p="$peak" '$4 == "reference" { printf "%.2f", $6 / 1000 / p }' labs/09-sgemm/bench-h200.tsv)
grep -qE "^sgemm +reference +512 +[0-9.]+ $want$" <<<"$out" ||
    bad "lab 09's reference should be $want of its roof; got: $(grep '^sgemm *reference' <<<"$out")"
# labs off the roofline (no flops to speak of) are not drawn
grep -qE "^(rolling_max|streams|transpose|tail) " <<<"$out" && bad "a lab with no flops is on the chart"
empty=$(mktemp -d)
msg=$($make -s --no-print-directory roofline BUILD="$empty" 2>&1); st=$?
rm -rf "$empty"
[ $st -ne 0 ] && grep -q "run make bench" <<<"$msg" ||
    bad "with no bench table: expected a message naming make bench and a failure; got status $st: $msg"
[ $fail = 0 ] && echo "roofline: make roofline FROM=h200 draws the roofs and the 12 points of the recorded tables"
exit $fail
