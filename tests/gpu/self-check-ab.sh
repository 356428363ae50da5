#!/usr/bin/env bash
# self-check-ab.sh - one lab's self-check (its solution graded as the student's file: every
# speed ratio should be 1) in this tree and in another checkout, in turn, on GPU 0, while every
# other GPU of the host copies both ways without a pause (tests/gpu/numa-probe.cu's load, the
# host link shared as in a batch on several GPUs). Prints each grading's speed ratio with its
# 95% interval and rounds, then each tree's median and how many of its ratios fell below 1:
# whether a change to how the grader times moves the self-check, with nothing else changed.
#
#   tests/gpu/self-check-ab.sh OTHER_TREE [LAB]    (GPU only; LAB default 05; PAIRS=14 rounds
#                                                   of one grading each; OUT=build/self-check-ab)
# OTHER_TREE is another checkout of the workbook (git worktree add ../old REV, or git archive
# REV unpacked), built here first if it is not.
set -uo pipefail
cd "$(dirname "$0")/../.."
other=${1:?usage: tests/gpu/self-check-ab.sh OTHER_TREE [LAB]}
lab=${2:-05}
out=${OUT:-build/self-check-ab}
pairs=${PAIRS:-14}
[ -f "$other/Makefile" ] || { echo "self-check-ab.sh: $other is not a checkout of the workbook" >&2; exit 2; }
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n" -ge 1 ] || { echo "self-check-ab.sh: no GPU here" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out" && out=$(cd "$out" && pwd)
# both trees built side by side, each on half the CPUs
j=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
(cd "$other" && make -s -j"$j" all) >"$out/build-other.log" 2>&1 &
other_build=$!
make -s -j"$j" all >"$out/build-this.log" 2>&1 || { echo "self-check-ab.sh: this tree does not build: $out/build-this.log" >&2; exit 1; }
wait $other_build || { echo "self-check-ab.sh: $other does not build: $out/build-other.log" >&2; exit 1; }
. tests/gpu/probe-common.sh # PROBE_COMMON
# shellcheck disable=SC2086
nvcc -O3 -arch=native -Icommon -o "$out/numa-probe" tests/gpu/numa-probe.cu $PROBE_COMMON -lpthread || exit 1
loads=()
for g in $(seq 1 $((n - 1))); do
    CUDA_VISIBLE_DEVICES=$g "$out/numa-probe" load 3600 -1 >"$out/load$g.txt" 2>&1 &
    loads+=($!)
done
trap '[ ${#loads[@]} -eq 0 ] || kill "${loads[@]}" 2>/dev/null' EXIT
[ "$n" -gt 1 ] && sleep 3
echo "lab $lab's self-check on GPU 0 of $n ($(nvidia-smi -i 0 --query-gpu=name --format=csv,noheader)), GPUs 1-$((n - 1)) copying both ways; this tree, then $other, $pairs times"
for i in $(seq 1 "$pairs"); do
    for t in this other; do
        d=.
        [ $t = other ] && d=$other
        g=$out/$t$i
        (cd "$d" && CUDA_VISIBLE_DEVICES=0 make -s grade LAB="$lab" STUDENT=solutions GRADE_DIR="$g" GRADE_WHERE=0) >"$g.out" 2>&1
        python3 - "$t" "$i" "$g/results.json" <<'PY' | tee -a "$out/ratios.txt"
import json, sys
try:
    r = json.load(open(sys.argv[3]))
except (OSError, ValueError) as e:
    print(sys.argv[1], sys.argv[2], "no report:", e)
    sys.exit()
for lab in r.get("labs", []):
    for c in lab.get("checks", []):
        sp = c.get("speed") or {}
        if c.get("kind") == "speed" and sp.get("ratio_median"):
            print(sys.argv[1], sys.argv[2], "%.4f [%.4f-%.4f] %d rounds" % (sp["ratio_median"],
                  sp.get("ratio_ci95_lo", 0), sp.get("ratio_ci95_hi", 0), sp.get("rounds", 0)))
PY
    done
done
python3 - "$out/ratios.txt" <<'PY'
import statistics, sys
got = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 2 and f[2][0].isdigit():
        got.setdefault(f[0], []).append(float(f[2]))
for t in ("this", "other"):
    r = got.get(t, [])
    if r:
        print("%-5s %2d ratios: median %.4f, %d below 1, %d outside 0.98-1.02, %.4f-%.4f" % (
            t, len(r), statistics.median(r), sum(x < 1 for x in r),
            sum(not 0.98 <= x <= 1.02 for x in r), min(r), max(r)))
PY
