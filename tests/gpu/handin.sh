#!/usr/bin/env bash
# handin.sh - work graded as it was handed in, on a GPU: the student path end to end.
#
#   tests/gpu/handin.sh          (logs under $OUT when set, else build/handin; prints a table last)
#
# 1. make test-vet with this toolkit's cuobjdump: the machine-code rule reads opcodes, never a
#    name (a kernel named sgemm_fp32_noHMMA is admitted, tensor-core code still rejected).
# 2. tests/cheats/run.sh on the honest cases of unusual shape (a kernel and a helper named like
#    the forbidden instructions, a block sized by the occupancy API under __launch_bounds__, a
#    file with a byte-order mark and CRLF) and the cheats they sit beside.
# 3. make grade of the reference solutions copied as a student's tree (each lab file with its
#    own headers beside it): every check must pass.
# 4. make grade-batch, labs 01 and 06, of the ways students hand work in (a whole checkout, a
#    lab folder of their own naming, a renamed file, an empty folder, a helper header, two
#    files for one lab) with this checkout's labs/01 edited as an instructor would: the
#    gradebook must grade with the workbook's skeleton, find and name the work.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/handin}
mkdir -p "$out"
jobs=$(nproc)
rows=()
row() { rows+=("$(printf '%-58s %s' "$1" "$2")"); }

make -j"$jobs" all >"$out/build.log" 2>&1 && row "build" ok || row "build" "FAIL (build.log)"

make test-vet >"$out/vet.log" 2>&1; row "test-vet (cuobjdump: $(ls ${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump 2>/dev/null | wc -l))" \
    "$(tail -2 "$out/vet.log" | head -1)"

bash tests/cheats/run.sh h57-sgemm-named-like-sass h58-coalescing-occupancy-sized-launch-bounds \
    h59-coalescing-bom-crlf h27-sgemm-names-like-tensor-cores c13-sgemm-tf32-rounding \
    >"$out/cheats.log" 2>&1
row "cheats and honest cases (gpu)" "$(grep -E '^cheats' "$out/cheats.log" | tail -1)"

tree=$(mktemp -d)/solutions-as-student
cp -r solutions "$tree"
make grade STUDENT="$tree" >"$out/solutions-copy.log" 2>&1
row "make grade STUDENT=<copy of solutions/>" "$(grep -E '^Score:' "$out/solutions-copy.log" | tail -1)"

subs=$(mktemp -d)/subs
mkdir -p "$subs"/{empty,checkout/cuda-workbook/labs/01-coalescing,checkout/cuda-workbook/solutions/01-coalescing} \
         "$subs"/{lab01dir/lab01,renamed,helper/06-transpose,two/a/labs/01-coalescing,two/b/labs/01-coalescing,top}
cp solutions/01-coalescing/coalescing.cu "$subs/checkout/cuda-workbook/labs/01-coalescing/"
cp labs/01-coalescing/coalescing.cu "$subs/checkout/cuda-workbook/solutions/01-coalescing/"
cp solutions/01-coalescing/coalescing.cu "$subs/lab01dir/lab01/"
cp solutions/01-coalescing/coalescing.cu "$subs/renamed/coalescing_lab1.cu"
cp solutions/01-coalescing/coalescing.cu "$subs/two/a/labs/01-coalescing/"
cp labs/01-coalescing/coalescing.cu "$subs/two/b/labs/01-coalescing/"
cp solutions/01-coalescing/coalescing.cu "$subs/top/"
echo notes >"$subs/empty/README.txt"
cp solutions/06-transpose/transpose.cu solutions/06-transpose/transpose_tiles.cuh "$subs/helper/06-transpose/"
keep=$(mktemp)
cp labs/01-coalescing/coalescing.cu "$keep"
cp solutions/01-coalescing/coalescing.cu labs/01-coalescing/coalescing.cu # the instructor's edit
make grade-batch SUBMISSIONS="$subs" OUT="$out/batch" LAB=01,06 SEED=0x5eed >"$out/batch.log" 2>&1
cp "$keep" labs/01-coalescing/coalescing.cu
cp "$out/batch/gradebook.csv" "$out/gradebook.csv" 2>/dev/null
row "grade-batch of hand-in layouts (gradebook.csv)" "$(grep -c . "$out/gradebook.csv" 2>/dev/null) lines"
echo
printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
echo
cut -c1-160 "$out/gradebook.csv" 2>/dev/null
