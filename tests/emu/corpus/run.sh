#!/usr/bin/env bash
# tests/emu/corpus/run.sh -- build and run public, self-checking CUDA programs on the CPU
# emulator, and print one table: program, built, passed, time.
#
#   bash tests/emu/corpus/run.sh SAMPLES_DIR [NAME...]
#   bash tests/emu/corpus/run.sh --fetch [NAME...]
#
# SAMPLES_DIR is a checkout of github.com/NVIDIA/cuda-samples (its Common/ and Samples/);
# --fetch clones it into build/corpus/cuda-samples first (needs the network). The programs'
# sources never enter this repository. Each program is built with common/emu/emu-nvcc as its
# own build would build it (same sources, -I Common), and run with only its size flags
# changed, so it finishes in seconds on a CPU. NAME... runs only those programs;
# CORPUS_TIMEOUT (seconds, default 120) bounds each run.
#
# "passed" means: exit status 0 and no line saying FAILED, "Result = FAIL", "test failed" or
# mismatch in its output (the programs check their own results). "expected" marks a program that uses a feature the
# emulator refuses at build time (grid.sync, inline PTX ...): it counts as right when the
# build fails with a one-line message naming the feature. Logs: build/corpus/logs/NAME.*.
# Not part of `make test`: the corpus is large and fetched from outside.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
NVCC=$ROOT/common/emu/emu-nvcc
OUT=$ROOT/build/corpus
if [ "${1:-}" = "--fetch" ]; then
    shift
    if [ ! -d "$OUT/cuda-samples/Samples" ]; then
        mkdir -p "$OUT"
        git clone --depth 1 https://github.com/NVIDIA/cuda-samples "$OUT/cuda-samples" || exit 2
    fi
    SAMPLES=$OUT/cuda-samples
else
    SAMPLES=${1:?usage: run.sh SAMPLES_DIR [NAME...] | run.sh --fetch [NAME...]}
    shift
fi
[ -d "$SAMPLES/Samples" ] && [ -d "$SAMPLES/Common" ] ||
    { echo "run.sh: $SAMPLES is not a cuda-samples checkout (no Samples/ and Common/)" >&2; exit 2; }
SAMPLES=$(cd "$SAMPLES" && pwd)
mkdir -p "$OUT/bin" "$OUT/logs"

# name | directory under Samples/ | sources (.cu/.cpp, blank: all in the directory) |
# run arguments (sizes only) | expectation (pass, or build-refused:WORD for a feature the
# emulator refuses at build time; WORD must appear in the build's error)
PROGRAMS=(
"vectorAdd|0_Introduction/vectorAdd|||pass"
"asyncAPI|0_Introduction/asyncAPI|||pass"
"clock|0_Introduction/clock|||pass"
"matrixMul|0_Introduction/matrixMul||-wA=64 -hA=64 -wB=64 -hB=64|pass"
"mergeSort|0_Introduction/mergeSort|||pass"
"simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|||pass"
"simpleCallback|0_Introduction/simpleCallback|||pass"
"simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|||pass"
"simpleHyperQ|0_Introduction/simpleHyperQ|||pass"
"simpleMultiCopy|0_Introduction/simpleMultiCopy|||pass"
"simpleOccupancy|0_Introduction/simpleOccupancy|||pass"
"simplePrintf|0_Introduction/simplePrintf|||pass"
"simpleStreams|0_Introduction/simpleStreams|||pass"
"simpleTemplates|0_Introduction/simpleTemplates|||pass"
"simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|||pass"
"simpleZeroCopy|0_Introduction/simpleZeroCopy|||pass"
"systemWideAtomics|0_Introduction/systemWideAtomics|||pass"
"template|0_Introduction/template|||pass"
"simpleIPC|0_Introduction/simpleIPC|simpleIPC.cu ../../../Common/helper_multiprocess.cpp||pass"
"fp16ScalarProduct|0_Introduction/fp16ScalarProduct|||pass"
"convolutionSeparable|2_Concepts_and_Techniques/convolutionSeparable|||pass"
"eigenvalues|2_Concepts_and_Techniques/eigenvalues|bisect_large.cu bisect_small.cu bisect_util.cu gerschgorin.cpp main.cu matlab.cpp|-matrix-size=64|pass"
"histogram|2_Concepts_and_Techniques/histogram|||pass"
"interval|2_Concepts_and_Techniques/interval|||pass"
"reduction|2_Concepts_and_Techniques/reduction||--n=100000|pass"
"scalarProd|2_Concepts_and_Techniques/scalarProd|||pass"
"scan|2_Concepts_and_Techniques/scan|||pass"
"shfl_scan|2_Concepts_and_Techniques/shfl_scan|||pass"
"sortingNetworks|2_Concepts_and_Techniques/sortingNetworks|||pass"
"streamOrderedAllocation|2_Concepts_and_Techniques/streamOrderedAllocation|||pass"
"threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction||--n=100000|pass"
"reductionMultiBlockCG|2_Concepts_and_Techniques/reductionMultiBlockCG|||build-refused:grid.sync"
"inlinePTX|2_Concepts_and_Techniques/inlinePTX|||build-refused:asm"
"StreamPriorities|3_CUDA_Features/StreamPriorities|||pass"
"warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG|||pass"
"newdelete|3_CUDA_Features/newdelete|||pass"
"alignedTypes|6_Performance/alignedTypes|||pass"
"transpose|6_Performance/transpose||dimX=128 dimY=128|pass"
"LargeKernelParameter|6_Performance/LargeKernelParameter|||pass"
)

want=" $* "
n=0; built=0; passed=0; right=0
printf '%-26s %-8s %-8s %7s  %s\n' program built passed time note
for row in "${PROGRAMS[@]}"; do
    IFS='|' read -r name dir srcs args expect <<<"$row"
    [ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
    n=$((n + 1))
    src_dir=$SAMPLES/Samples/$dir
    if [ -z "$srcs" ]; then
        srcs=$(cd "$src_dir" 2>/dev/null && ls -- *.cu *.cpp 2>/dev/null | tr '\n' ' ')
    fi
    files=()
    for s in $srcs; do files+=("$src_dir/$s"); done
    log=$OUT/logs/$name
    b=no; p=no; note=""; secs=-
    if [ ${#files[@]} -gt 0 ] && "$NVCC" -std=c++17 -O2 -I"$SAMPLES/Common" -I"$src_dir" "${files[@]}" \
            -o "$OUT/bin/$name" >"$log.build" 2>&1; then
        b=yes; built=$((built + 1))
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        (cd "$src_dir" && timeout ${CORPUS_TIMEOUT:-120} "$OUT/bin/$name" $args) >"$log.run" 2>&1 </dev/null
        rc=$?
        secs=$(echo "$(date +%s.%N) - $start" | bc)
        secs=$(printf '%.1f' "$secs")
        if [ $rc -eq 0 ] && ! grep -qE 'FAILED|Result = FAIL|[Tt]est failed|[Mm]ismatch|MISMATCH' "$log.run"; then
            p=yes; passed=$((passed + 1))
        else
            note="exit $rc: $(grep -m1 -E 'cuda-emu: error|FAIL|ERROR|error' "$log.run" | cut -c1-80)"
        fi
    else
        note=$(grep -m1 -E 'error' "$log.build" | sed "s|$SAMPLES/||" | cut -c1-100)
    fi
    case $expect in
        pass) [ $p = yes ] && right=$((right + 1)) ;;
        build-refused:*)
            word=${expect#build-refused:}
            if [ $b = no ] && grep -q -- "$word" "$log.build"; then
                right=$((right + 1)); note="refused at build, as expected ($word)"
            fi ;;
    esac
    printf '%-26s %-8s %-8s %7s  %s\n' "$name" "$b" "$p" "$secs" "$note"
done
echo "$n programs: $built built, $passed passed; $right behaved as expected (passed, or refused at build with a message naming the feature)"
