#!/usr/bin/env bash
# tests/emu/corpus/run.sh -- build and run public, self-checking CUDA programs on the CPU
# emulator, and print one table: program, source, built, passed, time.
#
#   bash tests/emu/corpus/run.sh CORPUS_DIR [--heavy] [NAME...]
#
# CORPUS_DIR holds checkouts of the public sources, one folder each (fetch them with
# tests/emu/corpus/fetch.sh, which pins the commits this list was made against):
#   cuda-samples/                     github.com/NVIDIA/cuda-samples (its Common/ and Samples/)
#   cuda-training-series/             github.com/olcf/cuda-training-series (the solutions)
#   professional-cuda-c-programming/  github.com/deeperlearning/professional-cuda-c-programming
# A missing folder leaves its programs out ("not fetched"); a cuda-samples checkout given
# as CORPUS_DIR itself works too. The programs' sources never enter this repository.
#
# Each program is built with common/emu/emu-nvcc as its own build would build it (its
# sources, its include folders) and run with only its size flags changed, so that it
# finishes in seconds on a CPU. NAME... runs only those programs; --heavy runs instead the
# cuda-samples programs whose sizes are fixed in the source and take minutes to hours on
# the emulator (they are not in the default table: set CORPUS_TIMEOUT to match).
# CORPUS_TIMEOUT (seconds, default 120) bounds each run; CORPUS_JOBS is not offered: the
# emulator already runs each program's blocks on every CPU.
#
# "passed" means: exit status 0, no emulator or sanitizer error (but a device-side assert
# the program provokes to test it; a host leak is a warning), and no line of the program's own verdict saying it
# failed (FAILED, "Result = FAIL", "test failed", mismatch, "do not match", incorrect,
# "Validation failure", "ERROR:", "Error:").
# Expectations other than pass:
#   build-refused:WORD  the program uses something the emulator refuses at build time; it
#                       behaves as expected when the build fails with WORD in the message
#   error:WORD          the program has a real bug (its authors planted it); it behaves as
#                       expected when the emulator reports an error containing WORD
# Logs: build/corpus/logs/NAME.{build,run}. Not part of `make test`: the programs are
# fetched from outside and take minutes.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
NVCC=$ROOT/common/emu/emu-nvcc
OUT=$ROOT/build/corpus
CORPUS=${1:?usage: run.sh CORPUS_DIR [--heavy] [NAME...]  (fetch: tests/emu/corpus/fetch.sh)}
shift
CORPUS=$(cd "$CORPUS" && pwd) || exit 2
HEAVY_RUN=0
if [ "${1:-}" = "--heavy" ]; then
    HEAVY_RUN=1
    shift
fi
# The folder of each source.
if [ -d "$CORPUS/Samples" ] && [ -d "$CORPUS/Common" ]; then
    CS=$CORPUS
else
    CS=$CORPUS/cuda-samples
fi
OLCF=$CORPUS/cuda-training-series
PCC=$CORPUS/professional-cuda-c-programming
mkdir -p "$OUT/bin" "$OUT/logs"

# name | source (cs, olcf, pcc) | directory in the source | sources (.cu/.cpp; blank: all
# in the directory) | run arguments (sizes only) | expectation [| nvcc flags its own build
# gives: -rdc=true where it launches kernels from device code]
PROGRAMS=(
"vectorAdd|cs|Samples/0_Introduction/vectorAdd|||pass"
"asyncAPI|cs|Samples/0_Introduction/asyncAPI|||pass"
"clock|cs|Samples/0_Introduction/clock|||pass"
"matrixMul|cs|Samples/0_Introduction/matrixMul||-wA=64 -hA=64 -wB=64 -hB=64|pass"
"simpleAssert|cs|Samples/0_Introduction/simpleAssert|||pass"
"simpleAtomicIntrinsics|cs|Samples/0_Introduction/simpleAtomicIntrinsics|||pass"
"simpleCallback|cs|Samples/0_Introduction/simpleCallback|||pass"
"simpleCooperativeGroups|cs|Samples/0_Introduction/simpleCooperativeGroups|||pass"
"simpleHyperQ|cs|Samples/0_Introduction/simpleHyperQ|||pass"
"simpleMultiCopy|cs|Samples/0_Introduction/simpleMultiCopy|||pass"
"simpleMultiGPU|cs|Samples/0_Introduction/simpleMultiGPU|||pass"
"simpleOccupancy|cs|Samples/0_Introduction/simpleOccupancy|||pass"
"simplePrintf|cs|Samples/0_Introduction/simplePrintf|||pass"
"simpleTemplates|cs|Samples/0_Introduction/simpleTemplates|||pass"
"simpleVoteIntrinsics|cs|Samples/0_Introduction/simpleVoteIntrinsics|||pass"
"simpleZeroCopy|cs|Samples/0_Introduction/simpleZeroCopy|||pass"
"systemWideAtomics|cs|Samples/0_Introduction/systemWideAtomics|||pass"
"template|cs|Samples/0_Introduction/template|||pass"
"simpleIPC|cs|Samples/0_Introduction/simpleIPC|simpleIPC.cu ../../../Common/helper_multiprocess.cpp||pass"
"fp16ScalarProduct|cs|Samples/0_Introduction/fp16ScalarProduct|||pass"
"cudaOpenMP|cs|Samples/0_Introduction/cudaOpenMP|||pass"
"topologyQuery|cs|Samples/1_Utilities/topologyQuery|||pass"
"eigenvalues|cs|Samples/2_Concepts_and_Techniques/eigenvalues|bisect_large.cu bisect_small.cu bisect_util.cu gerschgorin.cpp main.cu matlab.cpp|-matrix-size=64 -iters-timing=1|pass"
"inlinePTX|cs|Samples/2_Concepts_and_Techniques/inlinePTX|||pass"
"reduction|cs|Samples/2_Concepts_and_Techniques/reduction||--n=100000|pass"
"reductionMultiBlockCG|cs|Samples/2_Concepts_and_Techniques/reductionMultiBlockCG||-n=100000|pass"
"scalarProd|cs|Samples/2_Concepts_and_Techniques/scalarProd|||pass"
"shfl_scan|cs|Samples/2_Concepts_and_Techniques/shfl_scan|||pass"
"streamOrderedAllocation|cs|Samples/2_Concepts_and_Techniques/streamOrderedAllocation|||pass"
"threadFenceReduction|cs|Samples/2_Concepts_and_Techniques/threadFenceReduction||--n=100000|pass"
"StreamPriorities|cs|Samples/3_CUDA_Features/StreamPriorities|||pass"
"warpAggregatedAtomicsCG|cs|Samples/3_CUDA_Features/warpAggregatedAtomicsCG|||pass"
"binaryPartitionCG|cs|Samples/3_CUDA_Features/binaryPartitionCG|||pass"
"newdelete|cs|Samples/3_CUDA_Features/newdelete|||pass"
"conjugateGradientMultiBlockCG|cs|Samples/4_CUDA_Libraries/conjugateGradientMultiBlockCG|||pass"
"fastWalshTransform|cs|Samples/5_Domain_Specific/fastWalshTransform|||pass"
"quasirandomGenerator|cs|Samples/5_Domain_Specific/quasirandomGenerator|||pass"
"SobolQRNG|cs|Samples/5_Domain_Specific/SobolQRNG|||pass"
"binomialOptions|cs|Samples/5_Domain_Specific/binomialOptions|||pass"
"transpose|cs|Samples/6_Performance/transpose||dimX=128 dimY=128|pass"
"LargeKernelParameter|cs|Samples/6_Performance/LargeKernelParameter|||pass"
"cdpSimplePrint|cs|Samples/3_CUDA_Features/cdpSimplePrint|||build-refused:dynamic parallelism|-rdc=true"
"simpleAWBarrier|cs|Samples/0_Introduction/simpleAWBarrier|||build-refused:cuda/barrier"
"olcf-stencil_1d|olcf|exercises/hw2|stencil_1d_solution.cu||pass"
"olcf-matrix_sums|olcf|exercises/hw4|matrix_sums_solution.cu||pass"
"olcf-matrix_sums_wide|olcf|exercises/hw5|matrix_sums_solution.cu||pass"
"olcf-reductions|olcf|exercises/hw5|reductions.cu||pass"
"olcf-array_inc|olcf|exercises/hw6|array_inc_solution.cu||pass"
"olcf-overlap|olcf|exercises/hw7|overlap_solution.cu||pass"
"olcf-task1|olcf|exercises/hw8/task1|task1_solution.cu||pass"
"olcf-task2|olcf|exercises/hw8/task2|task2_solution.cu||pass"
"olcf-task3|olcf|exercises/hw8/task3|task3_solution.cu||pass"
"olcf-streams|olcf|exercises/hw10|streams_solution.cu||pass"
"olcf-cg_groups|olcf|exercises/hw12|task1_solution.cu||pass"
"olcf-thrust|olcf|exercises/hw9|task2_solution.cu||build-refused:thrust"
"olcf-cublas|olcf|exercises/hw13/Solutions|axpy_cublas_solution.cu||build-refused:cublas"
"olcf-graph|olcf|exercises/hw13/Solutions|axpy_stream_capture_solution.cu||build-refused:cudaGraph"
"pcc-sumArraysOnGPU|pcc|examples/chapter02|sumArraysOnGPU-small-case.cu||pass"
"pcc-readSegment|pcc|examples/chapter04|readSegment.cu||pass"
"pcc-readSegmentUnroll|pcc|examples/chapter04|readSegmentUnroll.cu||pass"
"pcc-writeSegment|pcc|examples/chapter04|writeSegment.cu||pass"
"pcc-simpleMathAoS|pcc|examples/chapter04|simpleMathAoS.cu||pass"
"pcc-simpleMathSoA|pcc|examples/chapter04|simpleMathSoA.cu||pass"
"pcc-sumArrayZerocpy|pcc|examples/chapter04|sumArrayZerocpy.cu|16|pass"
"pcc-sumMatrixGPUManaged|pcc|examples/chapter04|sumMatrixGPUManaged.cu|10|pass"
"pcc-sumMatrixGPUManual|pcc|examples/chapter04|sumMatrixGPUManual.cu|10|pass"
"pcc-transpose|pcc|examples/chapter04|transpose.cu||pass"
"pcc-constantStencil|pcc|examples/chapter05|constantStencil.cu||pass"
"pcc-constantReadOnly|pcc|examples/chapter05|constantReadOnly.cu||pass"
"pcc-atomic-ordering|pcc|examples/chapter07|atomic-ordering.cu||error:data race on device memory"
"pcc-debug-hazards|pcc|examples/chapter10|debug-hazards.cu||error:data race on shared memory"
"pcc-nestedReduce|pcc|examples/chapter03|nestedReduce.cu||build-refused:dynamic parallelism|-rdc=true"
)
# cuda-samples programs whose sizes are fixed in the source (no flag shrinks them): minutes
# to hours on the emulator; run with --heavy only.
HEAVY=(
"mergeSort|cs|Samples/0_Introduction/mergeSort|||pass"
"simpleStreams|cs|Samples/0_Introduction/simpleStreams|||pass"
"convolutionSeparable|cs|Samples/2_Concepts_and_Techniques/convolutionSeparable|||pass"
"histogram|cs|Samples/2_Concepts_and_Techniques/histogram|||pass"
"interval|cs|Samples/2_Concepts_and_Techniques/interval|||pass"
"scan|cs|Samples/2_Concepts_and_Techniques/scan|||pass"
"sortingNetworks|cs|Samples/2_Concepts_and_Techniques/sortingNetworks|||pass"
"alignedTypes|cs|Samples/6_Performance/alignedTypes|||pass"
"BlackScholes|cs|Samples/5_Domain_Specific/BlackScholes|||pass"
)
[ $HEAVY_RUN -eq 1 ] && PROGRAMS=("${HEAVY[@]}")

FAIL_RE='FAILED|Result = FAIL|[Tt]est failed|[Mm]ismatch|MISMATCH|do not match|[Ii]ncorrect|Validation failure|ERROR:|(^|[^-A-Za-z0-9])Error:|cuda-emu: error'
# Lines that are no failure of the run: a device-side assert the program provokes on purpose
# (simpleAssert checks that it fired), and the heading of a leak list (a warning).
OK_RE='device-side assertion failed|ERROR: LeakSanitizer'
want=" $* "
n=0; built=0; passed=0; right=0; missing=0
printf '%-30s %-6s %-6s %-6s %7s  %s\n' program source built passed time note
for row in "${PROGRAMS[@]}"; do
    IFS='|' read -r name source dir srcs args expect flags <<<"$row"
    [ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
    case $source in cs) base=$CS ;; olcf) base=$OLCF ;; pcc) base=$PCC ;; esac
    src_dir=$base/$dir
    if [ ! -d "$src_dir" ]; then
        missing=$((missing + 1))
        printf '%-30s %-6s %-6s %-6s %7s  %s\n' "$name" "$source" - - - "not fetched ($base)"
        continue
    fi
    n=$((n + 1))
    incs=(-I"$src_dir")
    [ "$source" = cs ] && incs+=(-I"$CS/Common")
    if [ -z "$srcs" ]; then
        srcs=$(cd "$src_dir" && ls -- *.cu *.cpp 2>/dev/null | tr '\n' ' ')
    fi
    files=()
    for s in $srcs; do files+=("$src_dir/$s"); done
    log=$OUT/logs/$name
    b=no; p=no; note=""; secs=-; rc=-
    # shellcheck disable=SC2086
    if [ ${#files[@]} -gt 0 ] && "$NVCC" -std=c++17 -O2 -Xcompiler -fopenmp $flags "${incs[@]}" "${files[@]}" \
            -o "$OUT/bin/$name" >"$log.build" 2>&1; then
        b=yes; built=$((built + 1))
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        (cd "$src_dir" && timeout "${CORPUS_TIMEOUT:-120}" "$OUT/bin/$name" $args) >"$log.run" 2>&1 </dev/null
        rc=$?
        secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
        if [ $rc -eq 0 ] && ! grep -vE "$OK_RE" "$log.run" | grep -qE "$FAIL_RE"; then
            p=yes; passed=$((passed + 1))
        else
            note="exit $rc: $(grep -m1 -E "cuda-emu: error|ERROR|runtime error|$FAIL_RE" "$log.run" | cut -c1-90)"
            [ $rc -eq 124 ] && note="timed out after ${CORPUS_TIMEOUT:-120} s"
        fi
    else
        note=$(grep -m1 -E 'error' "$log.build" | sed "s|$base/||" | cut -c1-100)
    fi
    case $expect in
        pass) [ $p = yes ] && right=$((right + 1)) ;;
        build-refused:*)
            word=${expect#build-refused:}
            if [ $b = no ] && grep -q -- "$word" "$log.build"; then
                right=$((right + 1)); note="refused at build, as expected ($word)"
            fi ;;
        error:*)
            word=${expect#error:}
            if [ $b = yes ] && grep -q -- "cuda-emu: error: .*$word\|$word.* in kernel" "$log.run"; then
                right=$((right + 1)); note="its planted bug is reported, as expected ($word)"
            fi ;;
    esac
    printf '%-30s %-6s %-6s %-6s %7s  %s\n' "$name" "$source" "$b" "$p" "$secs" "$note"
done
echo "$n programs: $built built, $passed passed; $right behaved as expected (passed, refused at" \
     "build with a message naming the feature, or reported their planted bug)" \
     "$([ $missing -gt 0 ] && echo "; $missing not fetched")"
