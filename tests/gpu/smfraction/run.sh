#!/usr/bin/env bash
# run.sh - the workbook on smaller GPUs made of the one present: for each share of the SMs,
# the self-check (make grade STUDENT=solutions), the untouched skeletons (make grade) and,
# with SM_BENCH=1, make bench (SM_GRADE=0 leaves out the two gradings); one summary line each,
# logs under $OUT/sm-NN/.
#
#   tests/gpu/smfraction/run.sh [PERCENT ...]          (default: 12 25 50)
#
# How: an MPS server limits every client process to PERCENT of the SMs
# (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE; sm-probe.cu shows that the driver honours it: the SM
# count a process reads follows the share, and its kernels run on that many SMs). The grader's
# sandboxed workers cannot join an MPS server (they have mount, IPC and pid namespaces of their
# own, and MPS clients must share the server's), so these gradings run with
# GRADER_SANDBOX=none: the harness and both workers then see the same share. They measure
# sizing, the lessons and the timing on a smaller GPU; the sandbox is tested by the cheats.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-build/gpu-run}
command -v nvidia-cuda-mps-control >/dev/null || { echo "sm fractions: no nvidia-cuda-mps-control on this machine"; exit 2; }
export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/var/tmp/workbook-mps-pipe}
export CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/var/tmp/workbook-mps-log}
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d || { echo "sm fractions: the MPS control daemon did not start"; exit 2; }
trap 'echo quit | nvidia-cuda-mps-control' EXIT
nvcc -O2 -o "$OUT/sm-probe" tests/gpu/smfraction/sm-probe.cu || exit 2

# One line from a grading's results.json: the SM counts its checks saw, the score, the speed
# ratios by lab, and how many correctness checks were not OK.
digest() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sms, ratios, bad = set(), [], 0
for lab in r.get("labs", []):
    for c in lab.get("checks", []):
        sms.add((c.get("device") or {}).get("sms", "?"))
        if c.get("kind") == "speed":
            sp = c.get("speed") or {}
            ratios.append("%s %s" % (lab.get("number", "?"),
                          "%.2f" % sp["ratio_median"] if "ratio_median" in sp else c.get("verdict")))
        elif c.get("verdict") != "OK":
            bad += 1
print("SMs seen %s; %d correctness checks not OK; speed ratios: %s" % (
    "/".join(sorted(sms)), bad, ", ".join(ratios)))
PY
}

for pct in ${*:-12 25 50}; do
    dir=$OUT/sm-$pct; mkdir -p "$dir"
    export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct
    echo "== $pct% of the SMs: $("$OUT/sm-probe")"
    for who in $([ "${SM_GRADE:-1}" = 1 ] && echo solutions labs); do
        s=$(date +%s)
        GRADER_SANDBOX=none make --no-print-directory grade STUDENT=$who >"$dir/grade-$who.txt" 2>&1
        st=$?
        cp build/grade/results.json "$dir/results-$who.json" 2>/dev/null
        echo "  $who: exit $st, $(grep '^Score' "$dir/grade-$who.txt"), $(( $(date +%s) - s )) s; $(digest "$dir/results-$who.json" 2>&1 | tail -1)"
    done
    if [ "${SM_BENCH:-0}" = 1 ]; then
        s=$(date +%s)
        GRADER_SANDBOX=none make --no-print-directory bench >"$dir/bench.txt" 2>&1
        echo "  bench: exit $?, $(( $(date +%s) - s )) s"
        grep -E 'skeleton|reference|cudaMemcpy|ceil|CUB|cuBLAS|peak|ideal' "$dir/bench.txt" | awk -F'\t' '{printf "    %s %s %s %s %s\n", $1, $5, $7, $8, $9}'
    fi
done
