#!/bin/bash
# run.sh - test-estimate: the no-GPU speed estimate (grader/feedback/estimate.awk) held to its
# agreement table with the H200, tests/gpu/results/estimate-vs-h200.txt:
#   1. every row of the table estimated again from the counts it was made from (committed in
#      tests/estimate/counts/, without the per-request rows: milliseconds, no emulator): each
#      estimate within 5% of the table's, and the figures over the labs the model is for at the
#      targets (the same side of the mark as the H200's measurement in 90% of the cases, within
#      25% of it in 80%);
#   2. one case counted again under the CPU emulator (lab 06's skeleton at GPU_PROFILE=h200, a
#      256 x 256 transpose: seconds), so that the counts themselves are held too;
#   3. make grade's ESTIMATE line words (estimate.c) from a file of estimates written by hand:
#      the ratio, the side of the mark (just above or below it, within the estimate's own
#      error), the bounds, "not a measurement"; for a lab of grader/feedback/estimate-limits.tsv,
#      no number, only that there is none and why; where the two sizes counted differ, the call
#      moved less than the task moves, made atomics on global memory, copied to or from the
#      host, or the file compiles other code for the emulator, none and why.
# After a change to the emulator's counting, redo the counts and the table:
#   tests/estimate/agree.sh --fixtures tests/estimate/counts --out tests/gpu/results/estimate-vs-h200.txt
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
table=tests/gpu/results/estimate-vs-h200.txt
fail=0
echo "test-estimate: every row of $table from the committed counts"
if ! BUILD=$BUILD MAKE=$MAKE tests/estimate/agree.sh --counts tests/estimate/counts --no-count --check "$table"; then
    echo "FAIL: the estimates from tests/estimate/counts no longer match $table (see above)"; fail=1
fi
echo "test-estimate: lab 06's skeleton counted again under the emulator"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
if ! BUILD=$BUILD MAKE=$MAKE tests/estimate/agree.sh --labs 06 --variants skeleton --counts "$tmp" --check "$table"; then
    echo "FAIL: lab 06's skeleton counted now does not give the table's estimate ($tmp/06-transpose/skeleton/explain.log)"; fail=1
fi
echo "test-estimate: make grade's line"
printf 'check 10\tcoalescing\t0.118\tdram\tdram\ncheck 11\tx\t1.02\tshared\tlatency\n' >"$tmp/est.tsv"
line=$("$BUILD"/tests/estimate_line "$tmp/est.tsv" 10 0.5 01)
case $line in
    "about 0.12x the reference on the Tesla T4 (the mark: 0.50x), below it; yours bound by DRAM traffic, the reference by DRAM traffic. An estimate"*"not a measurement"*"GPU_PROFILE=t4"*) ;;
    *) echo "FAIL: make grade's line for check 10: $line"; fail=1 ;;
esac
line=$(GPU_PROFILE=h200 "$BUILD"/tests/estimate_line "$tmp/est.tsv" 11 0.5 01)
case $line in
    "about 1.02x the reference on the NVIDIA H200 (the mark: 0.50x), at or above the mark; yours bound by shared-memory passes, the reference by loads in flight."*) ;;
    *) echo "FAIL: make grade's line for check 11 on the H200: $line"; fail=1 ;;
esac
line=$("$BUILD"/tests/estimate_line "$tmp/est.tsv" 10 0.85 08) # a lab estimate-limits.tsv lists
case $line in
    "none for this lab: its speed turns on each block's arithmetic"*"Only a GPU can tell"*) ;;
    *) echo "FAIL: lab 08's line does not say plainly that it gets no estimate, and why: $line"; fail=1 ;;
esac
case $line in *[0-9].[0-9]*x*) echo "FAIL: lab 08's line gives a number: $line"; fail=1 ;; esac
# (no file at all: a lab that gets none says so all the same)
case $("$BUILD"/tests/estimate_line "" 10 0.85 08) in
    "none for this lab: "*) ;;
    *) echo "FAIL: lab 08's line needs the count's file"; fail=1 ;;
esac
# the estimate given only where the two sizes agree, and the call moved what the task moves
printf 'check 10\tcoalescing\t1.020\tdram\tdram\nsizes 10\tdram\t32 x 8191\t1.00\t16 x 8191\t8.02\t1.020\t0.125\n' >"$tmp/sizes.tsv"
line=$("$BUILD"/tests/estimate_line "$tmp/sizes.tsv" 10 0.5 01)
case $line in
    "none: your code behaves differently at the two sizes counted"*"your DRAM sectors are 1.00x the reference's at 32 x 8191 but 8.02x at 16 x 8191 (estimates 1.020x and 0.125x)"*) ;;
    *) echo "FAIL: two sizes that differ, and the line: $line"; fail=1 ;;
esac
printf 'check 10\tcoalescing\t31.4\tdram\tdram\nshort 10\tsectors\t8192\t2097408\n' >"$tmp/short.tsv"
line=$("$BUILD"/tests/estimate_line "$tmp/short.tsv" 10 0.5 01)
case $line in
    "none: your counted call touched in its kernels' loads and stores 8192 bytes where the task moves 2097408 at the least (0%)"*) ;;
    *) echo "FAIL: a call that moved too little, and the line: $line"; fail=1 ;;
esac
printf 'check 10\tcoalescing\t3.5\tdram\tdram\nother 10\tCUDA_EMU\n' >"$tmp/other.tsv"
case $("$BUILD"/tests/estimate_line "$tmp/other.tsv" 10 0.5 01) in
    "none: your file compiles other code for the CPU emulator than for a GPU (it names CUDA_EMU)"*) ;;
    *) echo "FAIL: a file with other code for the emulator is estimated"; fail=1 ;;
esac
printf 'check 10\tcoalescing\t1.01\tdram\tdram\natomics 10\t10304\t4\n' >"$tmp/atomics.tsv"
line=$("$BUILD"/tests/estimate_line "$tmp/atomics.tsv" 10 0.5 01)
case $line in
    "none: your counted call made 10304 atomic operations on global memory (on 4 addresses), and what they cost on a GPU turns on how many threads contend for one address"*) ;;
    *) echo "FAIL: a call with global atomics is estimated, or the line does not say why: $line"; fail=1 ;;
esac
printf 'check 10\tcoalescing\t1.6\tdram\tdram\nhost 10\t2097152\t2097152\n' >"$tmp/host.tsv"
line=$("$BUILD"/tests/estimate_line "$tmp/host.tsv" 10 0.5 01)
case $line in
    "none: your counted call copied 2097152 bytes to or from the host (100.0% of the 2097152 the task moves)"*) ;;
    *) echo "FAIL: a call that copied to and from the host is estimated, or the line does not say why: $line"; fail=1 ;;
esac
printf 'check 10\tcoalescing\t0.55\tdram\tdram\n' >"$tmp/near.tsv"
case $("$BUILD"/tests/estimate_line "$tmp/near.tsv" 10 0.5 01) in
    "about 0.55x the reference on the Tesla T4 (the mark: 0.50x), just above the mark, within the estimate's own error of it"*) ;;
    *) echo "FAIL: an estimate within its own error of the mark does not say so"; fail=1 ;;
esac
[ -z "$("$BUILD"/tests/estimate_line "$tmp/est.tsv" 12 0.5 01)" ] || { echo "FAIL: a line for a check with no estimate"; fail=1; }
case $(GPU_PROFILE=nonesuch "$BUILD"/tests/estimate_line "$tmp/est.tsv" 10 0.5 01) in
    "none: GPU_PROFILE names no GPU of make profiles"*) ;;
    *) echo "FAIL: a GPU_PROFILE that names no GPU is not said so"; fail=1 ;;
esac
[ $fail = 0 ] && echo "test-estimate: ok"
exit $fail
