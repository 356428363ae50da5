#!/usr/bin/env bash
# gpu-selfcheck.sh - the grader's self-check (make grade STUDENT=solutions) with CUDA 12.4 on a
# GPU machine that has CUDA 13 and no network: the toolkit comes from the pack that
# tests/toolkits/fetch-for-gpu.sh made (.toolkits-gpu/), and everything is built into a build
# folder of its own (build-cuda12.4/), beside the machine's usual build/.
#
#   tests/toolkits/gpu-selfcheck.sh [--build-only]       (from the repository root)
#
# From the machine's CUDA 13 (CUDA13_HOME, default: the nvcc on PATH, else /usr/local/cuda) it
# links in what the pack leaves out: cuBLAS (lab 09's harness times cuBLAS as its ceiling; it
# is compiled against cuBLAS 12.4's headers and calls cublasCreate, cublasSetStream,
# cublasSetMathMode, cublasSgemm and cublasDestroy, whose C interface cuBLAS 13 keeps; cuBLAS
# carries its own runtime, so it needs no libcudart.so.13 beside the 12.4 one), cuobjdump and
# nvdisasm (which read 12.4's machine code), and the driver's libcuda stub.
#
# Prints the build's result, then one line per lab: its score and each speed check's ratio
# to the reference, then the exit status and the Score of make grade. --build-only builds
# for sm_90 without a GPU and stops there. Copies the logs to $OUT when it is set.
# Exit status: make grade's (0 full marks), or 1 when the toolkit or the build failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build_only=0
[ "${1:-}" != --build-only ] || build_only=1
B=${SELFCHECK_BUILD:-build-cuda12.4}
pack=.toolkits-gpu/cuda-12.4.tar.xz
die() { echo "selfcheck: error: $*" >&2; exit 1; }

[ -f "$pack" ] || die "expected the CUDA 12.4 pack at $pack, found none: run tests/toolkits/fetch-for-gpu.sh on a machine with network, and carry .toolkits-gpu/ here"
(cd .toolkits-gpu && sha256sum -c --status cuda-12.4.tar.xz.sha256) ||
    die "$pack does not match .toolkits-gpu/cuda-12.4.tar.xz.sha256 (damaged in transit?): make it again with tests/toolkits/fetch-for-gpu.sh"

# ---- the toolkit: unpacked into the build folder, completed from the machine's CUDA 13 -------
c13=${CUDA13_HOME:-$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")}
find_one() { local f; for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; }
cublas=$(find_one "$c13/lib64/libcublas.so.13" "$c13/targets/x86_64-linux/lib/libcublas.so.13")
cublaslt=$(find_one "$c13/lib64/libcublasLt.so.13" "$c13/targets/x86_64-linux/lib/libcublasLt.so.13")
stub=$(find_one "$c13/lib64/stubs/libcuda.so" "$c13/targets/x86_64-linux/lib/stubs/libcuda.so" \
                /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1)
[ -n "$cublas" ] && [ -n "$cublaslt" ] ||
    die "expected cuBLAS 13 (libcublas.so.13, libcublasLt.so.13) in $c13/lib64, found none: set CUDA13_HOME to the CUDA 13 toolkit"
[ -n "$stub" ] || die "expected libcuda (the driver's, or CUDA 13's stub) in $c13/lib64/stubs or /usr/lib*, found none"

rm -rf "$B/toolkit"
mkdir -p "$B/toolkit"
if command -v xz >/dev/null; then
    tar -C "$B/toolkit" -xJf "$pack" || die "could not unpack $pack into $B/toolkit"
else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$pack" "$B/toolkit" ||
        die "could not unpack $pack (no xz here, and python3's tarfile failed): install xz-utils"
fi
tk=$(cd "$B/toolkit/cuda-12.4-pack" && pwd)
ln -s "$cublas" "$tk/lib64/libcublas.so.13"
ln -s "$cublaslt" "$tk/lib64/libcublasLt.so.13"
ln -s libcublas.so.13 "$tk/lib64/libcublas.so"
ln -s "$stub" "$tk/lib64/stubs/libcuda.so"
# (nvdisasm alone is 50 MB that xz cannot shrink: the pack has neither)
if [ -x "$c13/bin/cuobjdump" ] && [ -x "$c13/bin/nvdisasm" ]; then
    ln -s "$c13/bin/cuobjdump" "$tk/bin/cuobjdump"
    ln -s "$c13/bin/nvdisasm" "$tk/bin/nvdisasm"
else
    echo "selfcheck: warning: expected cuobjdump and nvdisasm in $c13/bin, found them missing: the build fetches them from PyPI, and without network lab 09 rejects every object (set CUDA13_HOME to a CUDA 13 that has them)" >&2
fi
export CUDA_HOME=$tk

# A host compiler nvcc 12.4 accepts (gcc 6 to 13): the default, NVCC_CCBIN, or an older g++.
host=""
for c in "${NVCC_CCBIN:-}" g++ g++-13 g++-12 g++-11; do
    [ -n "$c" ] || continue
    NVCC_CCBIN=$c grader/make/check-toolkit.sh "$tk/bin/nvcc" --quiet 2>/dev/null && { host=$c; break; }
done
[ -n "$host" ] || { NVCC_CCBIN=${NVCC_CCBIN:-} grader/make/check-toolkit.sh "$tk/bin/nvcc"; die "no host compiler that nvcc 12.4 accepts"; }
echo "selfcheck: $(NVCC_CCBIN=$host grader/make/check-toolkit.sh "$tk/bin/nvcc")"

save() { [ -n "${OUT:-}" ] && mkdir -p "$OUT/selfcheck" && cp "$@" "$OUT/selfcheck/" 2>/dev/null; true; }

# ---- build, then grade ------------------------------------------------------------------------
args=(BUILD="$B" CUDA_HOME="$tk" NVCC_CCBIN="$host" STUDENT=solutions)
[ $build_only = 0 ] || args+=(MODE=gpu CUDA_ARCH=sm_90)
start=$SECONDS
if ! make -j"$(nproc)" --no-print-directory all "${args[@]}" >"$B/build.log" 2>&1; then
    echo "selfcheck: the build with CUDA 12.4 FAILED; the end of $B/build.log:"
    grep -v '^  [A-Z]* ' "$B/build.log" | tail -20 | sed 's/^/    /'
    save "$B/build.log"
    exit 1
fi
# The pieces must be 12.4's: every harness needs libcudart.so.12 (and lab 09's, cuBLAS 13).
# (each lab's harness is a link to the one harness; its problem.so is linked on its own)
for h in "$B"/gpu/.grader/*/harness "$B"/gpu/.grader/*/problem.so; do
    readelf -d "$h" | grep -q '\[libcudart.so.12\]' || die "expected $h linked with libcudart.so.12 (CUDA 12.4), found: $(readelf -d "$h" | grep -o 'libcudart[^]]*')"
done
echo "selfcheck: built with CUDA 12.4 into $B in $((SECONDS - start)) s"
save "$B/build.log"
[ $build_only = 0 ] || exit 0

make --no-print-directory grade "${args[@]}" 2>&1 | tee "$B/grade.log"
status=${PIPESTATUS[0]}
save "$B/grade.log" "$B/grade/results.json"

echo
echo "selfcheck (CUDA 12.4 build, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)):"
awk '
    /^== [0-9][0-9] / { lab = $2 " " $3; sub(/:$/, "", lab); ratios[lab] = ""; order[n++] = lab }
    /^  speed/ && match($0, /[0-9.]+x the reference/) {
        r = substr($0, RSTART, RLENGTH); sub(/ the reference/, "", r); v = ($0 ~ /\.\.\. *OK/) ? "OK" : "FAIL"
        ratios[lab] = ratios[lab] " " r " " v }
    /^  [a-z]+: [0-9]+\/[0-9]+$/ { score[lab] = $2 }
    END { printf "  %-16s %-7s %s\n", "lab", "score", "speed (ratio to the reference)"
          for (i = 0; i < n; i++) printf "  %-16s %-7s%s\n", order[i], score[order[i]], ratios[order[i]] }
' "$B/grade.log"
echo "  make grade exit status: $status; $(grep -m1 '^Score:' "$B/grade.log" || echo 'no Score line')"
exit "$status"
