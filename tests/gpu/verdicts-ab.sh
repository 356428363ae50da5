#!/usr/bin/env bash
# verdicts-ab.sh - the same gradings in this tree and in another checkout, with one seed: the
# solutions (STUDENT=solutions) and the skeletons (labs/), each tree in turn on this machine's
# GPU (or the CPU emulator where there is none). Prints, for each grading, whether every
# check's verdict, points and blame are the same in both trees, and every correctness check's
# message too (a speed check's message carries its measured ratio, which moves run to run),
# then the score lines; exits 1 on any difference. For a change that should move no verdict
# (a refactoring of the grader), with nothing else changed.
#
#   tests/gpu/verdicts-ab.sh OTHER_TREE          (OUT=build/verdicts-ab, SEED=0x5eed1234)
#
# OTHER_TREE is another checkout of the workbook (git worktree add ../old REV, or git archive
# REV unpacked); each tree builds what it needs in its own build/.
set -uo pipefail
cd "$(dirname "$0")/../.."
other=${1:?usage: tests/gpu/verdicts-ab.sh OTHER_TREE}
[ -f "$other/Makefile" ] || { echo "verdicts-ab.sh: $other is not a checkout of the workbook" >&2; exit 2; }
other=$(cd "$other" && pwd)
out=${OUT:-build/verdicts-ab}
seed=${SEED:-0x5eed1234}
rm -rf "$out" && mkdir -p "$out" && out=$(cd "$out" && pwd)
here=$(pwd)
for tree in other here; do
    dir=$([ $tree = here ] && echo "$here" || echo "$other")
    for who in solutions skeletons; do
        student=$([ $who = solutions ] && echo solutions || echo labs)
        (cd "$dir" && SEED=$seed make grade STUDENT=$student) >"$out/$tree-$who.log" 2>&1
        cp "$dir/build/grade/results.json" "$out/$tree-$who.json" 2>/dev/null
    done
done
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
def facts(path):
    j = json.load(open(path))
    rows = []
    for lab in j["labs"]:
        for c in lab.get("checks", []):
            msg = c.get("message") if c.get("kind") != "speed" else ""
            rows.append((lab["lab"], c.get("name"), c.get("verdict"), c.get("points"), c.get("earned"),
                         c.get("blame"), msg))
        rows.append((lab["lab"], "(lab)", lab.get("score"), lab.get("max"), lab.get("not_started")))
    rows.append(("(run)", j.get("score"), j.get("max"), j.get("exit_status")))
    return rows
bad = 0
print(f"{'grading':10} {'checks':>6}  same in both trees")
for who in ("solutions", "skeletons"):
    try:
        a, b = facts(f"{out}/other-{who}.json"), facts(f"{out}/here-{who}.json")
    except (OSError, KeyError, ValueError) as e:
        print(f"{who:10} {'-':>6}  no results ({e}): see {out}/*-{who}.log")
        bad += 1
        continue
    same = a == b
    bad += not same
    print(f"{who:10} {len(a):>6}  {'yes' if same else 'NO'}")
    for x, y in zip(a, b):
        if x != y:
            print(f"    other: {x}\n    here:  {y}")
sys.exit(1 if bad else 0)
EOF
