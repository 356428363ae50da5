#!/usr/bin/env bash
# lab03-divergence.sh - lab 03's pass mark, from measurements: the skeleton, every ladder rung,
# the reference and candidate student variants, timed side by side on this GPU, and which of
# them each candidate mark would pass.
#
#   tests/gpu/lab03-divergence.sh       (RUNS=3 gradings each; OUT=build/gpu-run/lab03)
#
# Why: the lesson is regrouping work so that each warp holds one class. The classes' chains
# differ in length (256, 512, 1024, 2048 steps: grader/labs/03-divergence/divergence.h), so a
# warp that mixes classes runs 3840 steps with the skeleton's four loops, or 2048 with one loop
# and a count per lane (rungs 1 and 2, the cheap branch and the class as data), where a warp
# of one class runs 960 on average: by the step count 0.25 and 0.47 of the reference. This
# script measures where each variant lands, to check the mark (grader/labs/03-divergence/
# table.c, .threshold) against:
#   1. make bench LAB=03: skeleton, rungs, reference and the FMA ceiling in one table (once);
#      OUT/bench.tsv is what labs/03-divergence/bench-h200.tsv records (then
#      grader/tools/bench-tables and bench-chart redraw the lesson's table and chart);
#   2. every file below graded as a student's (grader/driver/grade.sh STUDENT=FILE LAB=03), RUNS
#      times: the speed check's median ratio to the reference, which is what the pass mark
#      is compared with:
#        labs/03-divergence/divergence.cu           the skeleton (4 chains per divergent warp)
#        solutions/03-divergence/steps/*.cu         the ladder rungs (cheap branch, class as
#                                                   data: no regrouping; block regroup: the
#                                                   first that regroups; balanced regroup)
#        solutions/03-divergence/divergence.cu      the reference (regrouped, persistent grid)
#        tests/gpu/lab03/*.cu                       candidates: rung 1's cheap branch with two
#                                                   chains a thread and no regrouping
#                                                   (cheap-branch-two-chains.cu): independent
#                                                   work is not the cure; every lane doing every
#                                                   class (select-all-four.cu); and a second,
#                                                   honest cure without regrouping, each lane
#                                                   refilling itself from its own queue of
#                                                   elements in chunks of 256 steps
#                                                   (lane-refill.cu): where it lands says whether
#                                                   the mark asks for regrouping or for any cure
#                                                   of the idle lanes
#   3. a table: per file its ratios (median, min, max over the runs), and for each candidate
#      mark 0.50 ... 0.90 whether it passes (the median at or above it).
# Writes OUT/lab03.tsv (file, run, ratio) and OUT/table.txt, and prints the table. Nothing in
# the workbook changes; choosing a mark (grader/labs/03-divergence/table.c, .threshold) and
# the lesson's "Which rung passes first" is the lead's.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run/lab03}
runs=${RUNS:-3}
mkdir -p "$OUT"
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "lab03-divergence.sh times on a GPU, and nvidia-smi lists none here." >&2
    exit 2
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >"$OUT/gpu.txt"
echo "lab 03 on $(head -1 "$OUT/gpu.txt"): $runs grading(s) of each file"

${MAKE:-make} --no-print-directory bench LAB=03 >"$OUT/bench.txt" 2>&1 &&
    cp build/bench/divergence.tsv "$OUT/bench.tsv" 2>/dev/null
echo "make bench LAB=03: exit $? ($OUT/bench.txt)"

files=(labs/03-divergence/divergence.cu solutions/03-divergence/steps/*.cu
       solutions/03-divergence/divergence.cu tests/gpu/lab03/*.cu)
: >"$OUT/lab03.tsv"
for f in "${files[@]}"; do
    name=${f#solutions/03-divergence/}
    name=${name#tests/gpu/lab03/}
    name=${name%.cu}
    [ "$f" = labs/03-divergence/divergence.cu ] && name=skeleton
    [ "$f" = solutions/03-divergence/divergence.cu ] && name=reference
    # a file of the workbook's solutions is graded where it lies (it may include the lab's
    # shared header, solutions/03-divergence/rung_chains.cuh, which its sandbox then gets); any
    # other is copied into a tree of its own, as a student hands it in
    tree=$OUT/tree-${name//\//-}
    rm -rf "$tree" && mkdir -p "$tree/03-divergence" && cp "$f" "$tree/03-divergence/divergence.cu"
    case $f in solutions/*) tree=$f ;; esac
    for r in $(seq "$runs"); do
        g=$OUT/grade-${name//\//-}-$r
        grader/driver/grade.sh STUDENT="$tree" LAB=03 GRADE_DIR="$g" >"$g.txt" 2>&1
        python3 - "$g/results.json" "$name" "$r" >>"$OUT/lab03.tsv" <<'PY'
import json, sys
try:
    lab = json.load(open(sys.argv[1]))["labs"][0]
except (OSError, ValueError, KeyError, IndexError):
    print("%s\t%s\tnan\tno results" % (sys.argv[2], sys.argv[3]))
    sys.exit()
ok = all(c["verdict"] == "OK" for c in lab["checks"] if c["kind"] != "speed")
sp = [c for c in lab["checks"] if c["kind"] == "speed"]
ratio = sp[0].get("speed", {}).get("ratio_median", float("nan")) if sp else float("nan")
print("%s\t%s\t%.4f\t%s" % (sys.argv[2], sys.argv[3], ratio, "correct" if ok else "NOT CORRECT"))
PY
        tail -n 1 "$OUT/lab03.tsv" | awk -F'\t' '{ printf "  %-28s run %s: %s (%s)\n", $1, $2, $3, $4 }'
    done
done

python3 - "$OUT/lab03.tsv" "$(head -1 "$OUT/gpu.txt")" <<'PY' | tee "$OUT/table.txt"
import math, statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = {}
for name, run, ratio, state in rows:
    by.setdefault(name, []).append(float(ratio))
marks = [0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90]
print("\nlab 03 on %s: the speed check's ratio to the reference (median of the runs)" % sys.argv[2])
print("%-28s %7s %7s %7s  %s" % ("file", "median", "min", "max", "  ".join("%.2f" % m for m in marks)))
for name, r in by.items():
    ok = [x for x in r if not math.isnan(x)]
    med = st.median(ok) if ok else float("nan")
    print("%-28s %7.3f %7.3f %7.3f  %s" % (name, med, min(ok or [math.nan]), max(ok or [math.nan]),
          "  ".join(("pass" if med >= m else "  - ") for m in marks)))
mark = [l for l in open("grader/labs/03-divergence/table.c") if ".threshold" in l]
print("\nThe table's mark: %s" % (mark[0].strip() if mark else "?"))
print("A mark that makes the lesson needed passes the regrouping variants (reference,")
print("steps/3-block-regroup, steps/4-balanced-regroup) and fails those without regrouping (skeleton, steps/1-cheap-branch,")
print("steps/2-class-as-data, cheap-branch-two-chains, select-all-four), with a margin on each side")
print("wider than the spread between runs (max - min). lane-refill is honest work by another cure:")
print("if it passes, the mark asks for keeping the lanes busy, by regrouping or otherwise.")
PY
