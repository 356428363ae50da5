#!/usr/bin/env bash
# fetch-for-gpu.sh - packs CUDA 12.4 for a GPU machine that has CUDA 13 but no network, so that
# tests/toolkits/gpu-selfcheck.sh can build and grade the workbook there with 12.4.
#
#   tests/toolkits/fetch-for-gpu.sh        writes .toolkits-gpu/cuda-12.4.tar.xz (and .sha256)
#
# The pack is tests/toolkits/install.sh's 12.4 toolkit without what that machine's CUDA 13
# already has: cuBLAS's libraries (550 MB; lab 09's harness is compiled against cuBLAS 12.4's
# headers and links the machine's libcublas.so.13, see gpu-selfcheck.sh), cuobjdump and
# nvdisasm (50 MB that xz cannot shrink), and the driver's libcuda. It must stay under 40 MiB
# (the GPU machine's carry limit).
set -euo pipefail
cd "$(dirname "$0")/../.."
LIMIT_MIB=40
out=.toolkits-gpu
home=$(tests/toolkits/install.sh 12.4 --pack)
mkdir -p "$out"
echo "packing $home into $out/cuda-12.4.tar.xz (xz -9: a few minutes)"
tar -C "$(dirname "$home")" -cf - "$(basename "$home")" | xz -T0 -9 > "$out/cuda-12.4.tar.xz.part"
mv "$out/cuda-12.4.tar.xz.part" "$out/cuda-12.4.tar.xz"
(cd "$out" && sha256sum cuda-12.4.tar.xz > cuda-12.4.tar.xz.sha256)
size=$(stat -c %s "$out/cuda-12.4.tar.xz")
if [ "$size" -gt $((LIMIT_MIB * 1024 * 1024)) ]; then
    echo "error: $out/cuda-12.4.tar.xz is $((size / 1024 / 1024)) MiB, expected at most $LIMIT_MIB MiB: leave more out in tests/toolkits/install.sh --pack" >&2
    exit 1
fi
echo "$out: cuda-12.4.tar.xz, $((size / 1024 / 1024)) MiB. On the GPU machine, from the repository root: tests/toolkits/gpu-selfcheck.sh"
