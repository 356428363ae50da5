#!/usr/bin/env bash
# points.sh - points measure progress, on a GPU: a batch of seven students, every export read.
#
#   tests/gpu/points.sh            (logs under $OUT when set, else build/points; a table last)
#   SOLUTIONS=1 tests/gpu/points.sh    also grades STUDENT=solutions (every lab): full marks
#
# A batch of labs 01 and 08 (make grade-batch, one GPU) of:
#   nosub      hands in nothing (a notes file)                              0 and "not handed in"
#   comment    each skeleton with a comment added                           0 and "not started"
#   renamed    each skeleton with one variable renamed (work, at its speed)  0 by the speed rule
#   slow       a correct kernel of its own at the skeleton's speed          0 by the speed rule
#   partial    lab 08's first ladder rung, steps/1-split-in-4 (0.781x on an H200 against a mark
#              of 0.85x, partial credit from 0.68x: tests/gpu/results/h200-bench.txt), lab 01
#              not handed in                                                2 (half of 5, down)
#   full       both reference solutions                                     10 (5 + 5)
#   misplaced  both solutions in folders of its own naming (lab01/, lab08/) 0 and the fix
# Each student's points are read back from every export: gradebook.csv's total, Gradescope's
# score, JUnit's per-lab "points" properties, report.html's summary; the table says each and
# whether it is the expected one, and where the work is missing, the words (and the fix).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/points}
rm -rf "$out/subs" "$out/batch"
mkdir -p "$out/subs"
subs=$(cd "$out/subs" && pwd)

put() { mkdir -p "$subs/$1/$(dirname "$2")" && cat >"$subs/$1/$2"; }
put nosub notes/readme.txt <<<"nothing yet"
for lab in 01-coalescing/coalescing.cu 08-tail/tail.cu; do
    { echo "// my plan: see the lesson"; echo; cat "labs/$lab"; echo "/* todo */"; } | put comment "$lab"
done
sed 's/\bbias\b/offset/g' labs/01-coalescing/coalescing.cu | put renamed 01-coalescing/coalescing.cu
sed 's/\bacc\b/total/g' labs/08-tail/tail.cu | put renamed 08-tail/tail.cu
# a kernel of its own, as slow as the skeleton: the same uncoalesced mapping with fmaf; lab 08's
# one block per item (its tail) with two samples in flight instead of four
sed 's/out\[i\] = in\[i\] \* scale\[r\] + bias\[r\];/out[i] = fmaf(in[i], scale[r], bias[r]);/' \
    labs/01-coalescing/coalescing.cu | put slow 01-coalescing/coalescing.cu
sed 's/^#define ILP 4 .*/#define ILP 2/' labs/08-tail/tail.cu | put slow 08-tail/tail.cu
put partial 08-tail/tail.cu <solutions/08-tail/steps/1-split-in-4.cu
put partial 08-tail/tail_sliced.cuh <solutions/08-tail/tail_sliced.cuh
put partial notes.txt <<<"lab 01: next week"
put full 01-coalescing/coalescing.cu <solutions/01-coalescing/coalescing.cu
put full 08-tail/tail.cu <solutions/08-tail/tail.cu
put misplaced lab01/coalescing.cu <solutions/01-coalescing/coalescing.cu
put misplaced lab08/tail.cu <solutions/08-tail/tail.cu
cmp -s "$subs/slow/01-coalescing/coalescing.cu" labs/01-coalescing/coalescing.cu &&
    echo "points.sh: the slow variant of lab 01 did not change (labs/ edited?)" >&2

make grade-batch SUBMISSIONS="$subs" OUT="$out/batch" LAB=01,08 SEED=0x5eed >"$out/batch.log" 2>&1
echo "batch exit status $? (log: $out/batch.log)"
if [ "${SOLUTIONS:-0}" = 1 ]; then
    grader/driver/grade.sh STUDENT=solutions GRADE_DIR="$out/solutions" >"$out/solutions.log" 2>&1
    echo "grader/driver/grade.sh STUDENT=solutions: exit $? ($(grep -E '^Score:' "$out/solutions.log" | tail -1); expected Score: 50/50, exit 0)"
fi

python3 - "$out/batch" <<'EOF'
import csv, json, os, re, sys
import xml.etree.ElementTree as ET
out = sys.argv[1]
want = {"nosub": 0, "comment": 0, "renamed": 0, "slow": 0, "partial": 2, "full": 10, "misplaced": 0}
words = {"nosub": "not handed in", "comment": "not started", "misplaced": "move it there"}
rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out, "gradebook.csv"), newline=""))}
if any(r.get("speed") == "not graded (no GPU)" for r in rows.values()):
    print("no GPU here: speed was not graded, so there are no points to hold (each row below says "
          "so); run this on a GPU")
ids = {o["student"]: o["id"] for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl")))}
bad = 0
print("%-10s %6s %6s %6s %10s %6s %6s %-5s  %s" % ("student", "csv", "01", "08", "gradescope", "junit",
                                                 "html", "ok", "missing (why)"))
for who, expect in want.items():
    d = os.path.join(out, "students", ids.get(who, "?"))
    row = rows.get(who, {})
    try:
        gs = json.load(open(os.path.join(d, "gradescope.json")))["score"]
    except (OSError, ValueError, KeyError):
        gs = "?"
    try:
        props = [p.get("value") for p in ET.parse(os.path.join(d, "junit.xml")).iter("property")
                 if p.get("name") == "points"]
        ju = sum(int(m.group(1)) for v in props for m in [re.search(r"(\d+)/\d+$", v)] if m)
    except (OSError, ET.ParseError):
        ju = "?"
    try:
        m = re.search(r"<b>Score: (\d+)/\d+</b>", open(os.path.join(d, "report.html")).read())
        html = int(m.group(1)) if m else "?"
    except OSError:
        html = "?"
    said = [w for w in [words.get(who)] if w]
    told = all(w in row.get("reason", "") for w in said)
    got = [row.get("total"), gs, ju, html]
    ok = all(str(g) == str(expect) for g in got) and told
    bad += not ok
    print("%-10s %6s %6s %6s %10s %6s %6s %-5s  %s" % (who, row.get("total"), row.get("01-coalescing"),
          row.get("08-tail"), gs, ju, html, "ok" if ok else "FAIL", row.get("missing", "")))
    if who in words:
        print("           %s" % re.sub(r"; 08 tail: .*", "", row.get("reason", ""))[:200])
print("points: %s (expected 0, 0, 0, 0, 2, 10, 0 and each one's words)" % ("all as expected" if not bad else "%d students off" % bad))
sys.exit(1 if bad else 0)
EOF
