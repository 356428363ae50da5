#!/usr/bin/env bash
# ctx-knobs.sh - whether a setting of the environment makes a CUDA process's GPU context
# quicker to make: the driver makes contexts one at a time host-wide, some 240 ms each on an
# H200, 38 a graded student (grader/harness/README.md), which caps a host's students an hour
# however many GPUs it has. Each setting's contexts (tests/gpu/cuda-start-probe.cu: cuInit,
# the primary context, a first allocation) made one after another on GPU 0, then one process
# per GPU at once; the medians, milliseconds.
#
#   tests/gpu/ctx-knobs.sh            (GPU only; about a minute on two GPUs)
#   REPEAT=8 (processes a setting, a GPU), OUT=build/ctx-knobs
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/ctx-knobs}
mkdir -p "$out"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n" -ge 1 ] || { echo "ctx-knobs.sh: no GPU here" >&2; exit 2; }
rep=${REPEAT:-8}
nvcc -O2 -o "$out/probe" tests/gpu/cuda-start-probe.cu -lcuda || exit 1
# one GPU's processes, one after another; a line each: init, context, first allocation (s)
procs() { # file gpu-visible env...
    local f=$1 vis=$2
    shift 2
    : >"$f"
    for _ in $(seq "$rep"); do
        if [ "$vis" = all ]; then env "$@" "$out/probe" >>"$f"
        else env CUDA_VISIBLE_DEVICES="$vis" "$@" "$out/probe" >>"$f"; fi
    done
}
med() { # files...: the medians of init and context, ms
    python3 -c '
import sys, statistics as st
rows = [l.split() for f in sys.argv[1:] for l in open(f) if l.startswith("init")]
print("init %6.1f  context %6.1f  (n=%d)" % (st.median(float(r[1]) for r in rows) * 1e3,
      st.median(float(r[3]) for r in rows) * 1e3, len(rows)))' "$@"
}
echo "host: $n x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1), $(nproc) CPUs"
printf '%-36s %-40s %s\n' setting "alone (GPU 0)" "one per GPU at once"
run() { # label vis env...
    local label=$1 vis=$2
    shift 2
    procs "$out/alone.txt" "$vis" "$@"
    local a; a=$(med "$out/alone.txt")
    local b="(one GPU here)"
    if [ "$n" -gt 1 ]; then
        for g in $(seq 0 $((n - 1))); do
            if [ "$vis" = all ]; then procs "$out/once-$g.txt" all PROBE_DEVICE="$g" "$@" &
            else procs "$out/once-$g.txt" "$g" "$@" & fi
        done
        wait
        b=$(med "$out"/once-*.txt)
    fi
    printf '%-36s %-40s %s\n' "$label" "$a" "$b"
}
run "default (its GPU alone visible)" 0
run "every GPU visible" all
run "CUDA_DEVICE_MAX_CONNECTIONS=1" 0 CUDA_DEVICE_MAX_CONNECTIONS=1
run "CUDA_DEVICE_MAX_CONNECTIONS=32" 0 CUDA_DEVICE_MAX_CONNECTIONS=32
run "CUDA_MODULE_LOADING=EAGER" 0 CUDA_MODULE_LOADING=EAGER
run "default again" 0
