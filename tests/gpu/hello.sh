#!/usr/bin/env bash
# hello.sh - where a fresh worker's first command goes (tests/gpu/hello-probe.cu), for each lab's
# reference object, 4 processes each on GPU 0, then 6 processes a GPU on two GPUs at once: the
# means, milliseconds (ctx: the context; dlopen, rtinit, launch: the object's load, the runtime's
# first call, a first launch; hello: the three together). Each probe process is the GPU's only
# user unless a grading runs beside it. A built grader (make all); GPU only; under a minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/hello}
mkdir -p "$out"
nvcc -O2 -arch=native -cudart shared -Icommon -o "$out/probe" tests/gpu/hello-probe.cu common/util.c \
    -lcuda -ldl || exit 1
mean() { awk '{for (i = 1; i < NF; i += 2) s[$i] += $(i + 1)} END {for (k in s) printf "%s %.1f  ", k, s[k] / NR; print "(n=" NR ")"}'; }
for so in build/gpu/.grader/*/reference.so; do
    lab=$(basename "$(dirname "$so")")
    for mode in "" pre; do
        echo "$lab ${mode:-plain}: $(for _ in 1 2 3 4; do CUDA_VISIBLE_DEVICES=0 "$out/probe" "$so" $mode; done | mean)"
    done
done
so=build/gpu/.grader/sgemm/reference.so
echo "eager plain: $(for _ in 1 2 3 4; do CUDA_MODULE_LOADING=EAGER CUDA_VISIBLE_DEVICES=0 "$out/probe" "$so"; done | mean)"
if [ "$(nvidia-smi -L | grep -c '^GPU')" -ge 2 ]; then
    for mode in "" pre; do
        for g in 0 1; do
            (for _ in 1 2 3 4 5 6; do CUDA_VISIBLE_DEVICES=$g "$out/probe" "$so" $mode; done >"$out/par$g") &
        done
        wait
        echo "2 GPUs at once, ${mode:-plain}: $(cat "$out/par0" "$out/par1" | mean)"
    done
fi
