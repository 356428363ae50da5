#!/usr/bin/env bash
# numa.sh - where lab 05's pinned host arrays sit on a host of several NUMA nodes, and what that
# does to the GPU's copies when the other GPUs and the CPUs are busy (tests/gpu/numa-probe.cu):
# GPU 0's copy rates with 1 GiB on each node, alone; with every other GPU copying both ways
# from its own node; with every CPU copying on GPU 0's node; and on the other node. Then pairs
# of arrays made as lab 05's two output arrays are, and made together (numa-probe's pairs and
# pairs-together), and in huge pages (pairs-huge), copied into in turn, alone and beside the
# other GPUs' copies.
#
#   tests/gpu/numa.sh        (GPU only; about two minutes)       OUT=build/numa
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/numa}
mkdir -p "$out"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n" -ge 1 ] || { echo "numa.sh: no GPU here" >&2; exit 2; }
. tests/gpu/probe-common.sh # PROBE_COMMON
# shellcheck disable=SC2086
nvcc -O3 -arch=native -Icommon -o "$out/numa-probe" tests/gpu/numa-probe.cu $PROBE_COMMON -lpthread || exit 1
p=$out/numa-probe
# beside_copies SECONDS ARGS...: numa-probe ARGS on GPU 0 while every other GPU copies both ways
# from its own node for SECONDS (started 3 s ahead)
beside_copies() {
    local s=$1 g
    shift
    for g in $(seq 1 $((n - 1))); do
        CUDA_VISIBLE_DEVICES=$g "$p" load "$s" -1 >"$out/load$g.txt" &
    done
    sleep 3
    CUDA_VISIBLE_DEVICES=0 "$p" "$@"
    wait
}
echo "host: $n x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs," \
    "NUMA nodes: $(cat /sys/devices/system/node/online 2>/dev/null)"
for g in $(seq 0 $((n - 1))); do
    # nvidia-smi's "00000000:3B:00.0" is sysfs's "0000:3b:00.0"
    bus=$(nvidia-smi -i "$g" --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f' |
        sed 's/^0000//')
    echo "  GPU $g $bus: node $(cat /sys/bus/pci/devices/"$bus"/numa_node 2>/dev/null || echo '?')"
done
echo "== GPU 0 alone:"
CUDA_VISIBLE_DEVICES=0 "$p"
if [ "$n" -gt 1 ]; then
    echo "== GPU 0 while GPUs 1-$((n - 1)) copy both ways from their own nodes:"
    beside_copies 25
fi
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
for node in $(seq 0 $((nodes - 1))); do
    echo "== GPU 0 while every CPU copies on node $node:"
    CUDA_VISIBLE_DEVICES=0 "$p" cpu 25 "$node" >"$out/cpu$node.txt" &
    sleep 3
    CUDA_VISIBLE_DEVICES=0 "$p"
    wait
done
for mode in pairs pairs-together pairs-huge; do
    echo "== $mode, GPU 0 alone:"
    CUDA_VISIBLE_DEVICES=0 "$p" "$mode" 4
    [ "$n" -gt 1 ] || continue
    echo "== $mode, GPU 0 while GPUs 1-$((n - 1)) copy both ways:"
    beside_copies 40 "$mode" 6
done
