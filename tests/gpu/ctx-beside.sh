#!/usr/bin/env bash
# ctx-beside.sh - whether a process making its GPU context on the same GPU moves the times of
# work being timed there (tests/gpu/ctx-beside-probe.cu): the timing process alone, then with
# processes making a context one after another beside it, twice each in turn (BLOCK seconds a
# block, default 15). Per kind of work (a memory-bound copy kernel, a compute-bound kernel, a
# copy over the host link): the median time alone, beside, and of the samples beside that
# overlapped a context being made, with their ratios to alone and the 95th percentiles. GPU only;
# about a minute. OUT=dir keeps the samples (default build/ctx-beside); GAP=seconds between
# one process beside and the next (default 0: one after another, the driver always busy).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/ctx-beside}
block=${BLOCK:-15}
gap=${GAP:-0}
mkdir -p "$out"
nvcc -O2 -arch=native -Icommon -o "$out/probe" tests/gpu/ctx-beside-probe.cu common/check.cu common/util.c -lcuda || exit 1
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
: >"$out/ctx.txt"
: >"$out/samples.txt"
for round in 1 2; do
    "$out/probe" time "$block" | sed 's/^/alone /' >>"$out/samples.txt" || exit 1
    "$out/probe" time "$block" | sed 's/^/beside /' >"$out/beside.$round" &
    timer=$!
    sleep 1
    while kill -0 "$timer" 2>/dev/null; do "$out/probe" ctx >>"$out/ctx.txt"; sleep "$gap"; done
    wait "$timer" || exit 1
    cat "$out/beside.$round" >>"$out/samples.txt"
done
python3 - "$out/samples.txt" "$out/ctx.txt" <<'PY'
import statistics, sys
samples = [l.split() for l in open(sys.argv[1])]
ctx = [(float(a), float(b)) for _, a, b in (l.split() for l in open(sys.argv[2]))]
def overlaps(t0, t1):
    return any(a < t1 and b > t0 for a, b in ctx)
def p95(x):
    x = sorted(x)
    return x[int(0.95 * (len(x) - 1))]
print("contexts made beside the timing: %d, %.0f ms each (median)" %
      (len(ctx), 1e3 * statistics.median(b - a for a, b in ctx) if ctx else 0))
print("%-5s %8s %8s %8s %8s %7s %7s %7s %7s %5s" % ("kind", "alone", "beside", "during", "ratio", "r.dur",
                                                     "p95 al", "p95 bes", "p95 dur", "n dur"))
for kind in ("copy", "fma", "d2h"):
    al = [float(s[4]) for s in samples if s[0] == "alone" and s[1] == kind]
    be = [float(s[4]) for s in samples if s[0] == "beside" and s[1] == kind]
    du = [float(s[4]) for s in samples if s[0] == "beside" and s[1] == kind and overlaps(float(s[2]), float(s[3]))]
    ma, mb = statistics.median(al), statistics.median(be)
    md = statistics.median(du) if du else float("nan")
    print("%-5s %8.4f %8.4f %8.4f %8.4f %7.4f %7.4f %7.4f %7.4f %5d" %
          (kind, ma, mb, md, mb / ma, md / ma, p95(al), p95(be), p95(du) if du else float("nan"), len(du)))
PY
