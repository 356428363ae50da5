#!/usr/bin/env bash
# tests/emu/bench.sh -- the emulator's cost, this tree's build against a base commit's (make bench-emu).
#
#   tests/emu/bench.sh [BASE_COMMIT]      (make bench-emu [BENCH_BASE=COMMIT]; default d754a27)
#
# Builds tests/emu/bench/bench.cu with this tree's emulator and with the emulator of BASE_COMMIT
# (its common/emu extracted with git archive into $BUILD/emu-bench/base-HASH, kept for the next
# run), then runs the two programs interleaved, kernel by kernel, ROUNDS times each
# (BENCH_ROUNDS, default 5; each run itself takes the median of BENCH_REPS launches after one
# warm-up launch, default 3), with CUDA_EMU_WORKERS=1. Times are the process's CPU time, not
# the wall clock, and both builds run side by side, so that the other users of the machine's
# cores change both alike (a loaded machine's caches still do: the load average is printed).
# Prints the median of the rounds per kernel and build, base/this (the speed-up), and the load
# average before and after.
# Kernels: empty (ns a thread, 262144 threads), copy (a grid-stride copy, ns an element, 2^20
# floats), reduce (a shared-memory block reduction with __syncthreads, ns an element, 2^20),
# chain (each of 2^16 threads' loop of 256 dependent fused multiply-adds, ns a step: a loop's
# own cost beside its arithmetic, as in lab 03's chains).
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${1:-d754a27}
ROUNDS=${BENCH_ROUNDS:-5}
REPS=${BENCH_REPS:-3}
BUILD=${BUILD:-build}
OUT=$BUILD/emu-bench
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/emu-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# This tree's program, through emu.mk's own tools.
make -s -f tests/emu/emu_tests.mk "$BUILD/emu/tools/libcudaemu.a" "$BUILD/emu/tools/emu-rewrite" >/dev/null
EMU_BUILD=$BUILD/emu common/emu/emu-nvcc -O2 -o "$OUT/bench-this" tests/emu/bench/bench.cu
# The base commit's: its emulator extracted and built in a folder of its own (kept between runs
# in $OUT/base-COMMIT, keyed by the commit's hash), the program built again when this tree's
# bench.cu is newer than it.
base_hash=$(git rev-parse --verify "$BASE^{commit}")
base_dir=$OUT/base-$base_hash
if [ ! -d "$base_dir/src/common/emu" ]; then
    rm -rf "$base_dir" && mkdir -p "$base_dir/src"
    git archive "$base_hash" common/emu | tar -x -C "$base_dir/src"
fi
if [ ! -x "$base_dir/bench" ] || [ tests/emu/bench/bench.cu -nt "$base_dir/bench" ]; then
    EMU_BUILD=$(cd "$base_dir" && pwd)/emu "$base_dir/src/common/emu/emu-nvcc" -O2 -o "$base_dir/bench" tests/emu/bench/bench.cu
fi
cp "$base_dir/bench" "$OUT/bench-base"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
kernels="empty copy reduce chain"
for r in $(seq "$ROUNDS"); do
    for k in $kernels; do
        for b in base this; do
            CUDA_EMU_WORKERS=1 "$OUT/bench-$b" "$k" "$REPS" | awk -v b="$b" -v r="$r" '{ print b, $1, $2 }' >>"$tmp/runs"
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "emulator bench (CPU time): base $BASE (${base_hash:0:7}) vs this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- common/emu || echo '+changes')), CUDA_EMU_WORKERS=1, median of $ROUNDS rounds x $REPS launches"
echo "load average before: $load_before  after: $load_after  (CPUs: $(nproc))"
printf '%-8s %-12s %12s %12s %8s\n' kernel unit base this speedup
status=0
for k in $kernels; do
    base=$(awk -v k="$k" '$1 == "base" && $2 == k { print $3 }' "$tmp/runs" | median)
    this=$(awk -v k="$k" '$1 == "this" && $2 == k { print $3 }' "$tmp/runs" | median)
    unit="ns/element"; [ "$k" = empty ] && unit="ns/thread"; [ "$k" = chain ] && unit="ns/step"
    printf '%-8s %-12s %12s %12s %7.2fx\n' "$k" "$unit" "$base" "$this" "$(awk -v a="$base" -v b="$this" 'BEGIN { print a / b }')"
done
