#!/usr/bin/env bash
# wavefront-probe.sh - shared-memory wavefronts per instruction, pattern by pattern, on this GPU
# (Nsight Compute) beside the CPU emulator's count (make explain's rule, common/emu/src/count.cpp):
# one warp, one load or one store of 4, 8 or 16 bytes per lane, in each pattern of
# tests/emu/probes/wavefront-probe.cu. Writes the GPU's figures as a table,
# $OUT/wavefront-probe/wavefronts.tsv (pattern, width, load|store, wavefronts): the form of
# tests/emu/probes/wavefronts-h200.tsv, which make test-emulator holds the emulator to.
#
#   tests/gpu/wavefront-probe.sh        (tests/gpu/run-all.sh wavefronts)
#
# Prints the rows where the two differ, then a count. Exit status: 0 when every row
# agrees, 1 otherwise, 2 when a tool could not run.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}
log=$OUT/wavefront-probe
mkdir -p "$log" build/wavefront-probe
src=tests/emu/probes/wavefront-probe.cu
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
nvcc -O3 -std=c++17 -arch=native -Icommon -o build/wavefront-probe/gpu "$src" common/check.cu >"$log/build.log" 2>&1 || { cat "$log/build.log"; exit 2; }
make -s -j"$(nproc)" --no-print-directory -f tests/emu/emu_tests.mk build/emu/tests/probes/wavefront-probe >>"$log/build.log" 2>&1 ||
    { tail -20 "$log/build.log"; exit 2; }
"$ncu" --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum \
    --force-overwrite --export "$log/probe" --log-file "$log/ncu.log" build/wavefront-probe/gpu >"$log/gpu-order.txt" 2>&1 ||
    { tail -5 "$log/ncu.log"; exit 2; }
"$ncu" --import "$log/probe.ncu-rep" --csv --page raw --print-units base >"$log/gpu.csv" 2>>"$log/ncu.log" || exit 2

# The GPU: each kernel's wavefronts per instruction of its pattern's direction, in launch order.
awk '{ sub(/^"/, ""); sub(/"\r?$/, ""); n = split($0, f, /","/) }
    !head { for (i = 1; i <= n; i++) col[f[i]] = i; head = 1; next }
    f[col["Kernel Name"]] ~ /probe_(load|store)/ {
        op = f[col["Kernel Name"]] ~ /probe_load/ ? "ld" : "st"
        w = f[col["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" op ".sum"]]
        i = f[col["smsp__inst_executed_op_shared_" op ".sum"]]
        gsub(/,/, "", w); gsub(/,/, "", i); print (i > 0 ? w / i : "-") }' "$log/gpu.csv" >"$log/gpu-units.txt"
paste "$log/gpu-order.txt" "$log/gpu-units.txt" >"$log/wavefronts.tsv"
tests/emu/probes/compare.sh build/emu/tests/probes/wavefront-probe "$log/wavefronts.tsv" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
