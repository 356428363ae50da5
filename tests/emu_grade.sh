#!/usr/bin/env bash
# emu_grade.sh - grade a tree of labs under the CPU emulator and demand what CI must see:
# every correctness check of every lab OK, every speed check SKIP, no score (speed not graded),
# and exit status 2 (the untouched skeletons, labs/: each lab not started, exit status 1).
#   tests/emu_grade.sh STUDENT_DIR       (MAKE and BUILD from the environment)
# LABS=01,06: those labs only (a LAB= list), each with its WHERE and ESTIMATE lines under its
# speed check (the skeletons' slice of make test's quick tier: a speed check short of its mark).
set -uo pipefail
tree=$1
dir=${BUILD:-build}/grade-emu-$(basename "$tree")
out=$dir.txt
${MAKE:-make} --no-print-directory grade EMU=1 STUDENT="$tree" GRADE_DIR="$dir" SEED="${SEED:-}" LAB="${LABS:-}" >"$out" 2>&1
status=$?
labs=$(ls -d grader/labs/[0-9][0-9]-* | wc -l)
[ -z "${LABS:-}" ] || labs=$(echo "$LABS" | tr , '\n' | grep -c .)
# (no GPU: a lab's line gives its correctness checks and no points; the skeletons are not started)
graded=$(grep -cE '^  [a-z_]+: (not started: .*; )?correctness [0-9]+ of [0-9]+ checks passed; speed not graded \(no GPU\)$' "$out")
started=$(grep -cE '^  [a-z_]+: not started: ' "$out")
want_status=2 want_started=0
if [ "$(basename "$tree")" = labs ]; then want_status=1 want_started=$labs; fi
bad=$(grep -E ' (FAIL|ERROR) ' "$out")
oks=$(grep -cE ' OK    \(' "$out")
skips=$(grep -cE ' SKIP  \(.*skipped: CPU emulation' "$out")
problems=""
# the grader's own status (results.json); make's is 2 for any failed recipe, its own word
graded_status=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_status"])' "$dir/results.json" 2>/dev/null)
{ [ "$status" -eq "$want_status" ] || [ "$status" -eq 2 ]; } && [ "$graded_status" = "$want_status" ] ||
    problems+="exit status $status (the grader's: ${graded_status:-none}), expected $want_status (speed skipped$([ "$want_status" = 1 ] && echo ', every lab not started')). "
[ "$started" -eq "$want_started" ] || problems+="$started labs not started, expected $want_started. "
# one harness process served every lab graded, one after the other (grader/harness/
# harness_labs.cu): its first lab's log says "(lab 1 of this harness)", the K-th lab's "(lab K
# of this harness)"
served=$(python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]
try:
    names = [lab["lab"] for lab in json.load(open(d + "/results.json"))["labs"]]
except (OSError, ValueError, KeyError) as e:
    sys.exit(print("results.json unreadable: %s" % e))
said = []
for name in names:
    try:
        said += [int(k) for k in re.findall(r"lab %s begins \(lab (\d+) of this harness\)" % name,
                                            open("%s/%s.harness.log" % (d, name), errors="replace").read())]
    except OSError:
        pass
if said != list(range(1, len(names) + 1)):
    print("the labs' logs name them labs %s of their harness, expected 1 to %d of one" % (said, len(names)))
PY
)
[ -z "$served" ] || problems+="$served. "
grep -q '^Score: speed not graded (no GPU), so no score' "$out" || problems+="no 'Score: speed not graded (no GPU), so no score' line. "
[ "$graded" -eq "$labs" ] || problems+="$graded of $labs labs graded. "
[ -z "$bad" ] || problems+="checks failed: $bad. "
[ "$skips" -ge "$labs" ] || problems+="only $skips speed checks skipped. "
if [ -n "${LABS:-}" ]; then
    wheres=$(grep -c '  WHERE ' "$out") estimates=$(grep -c '  ESTIMATE ' "$out")
    [ "$wheres" -ge "$labs" ] || problems+="$wheres WHERE lines for $labs labs, expected one a lab. "
    [ "$estimates" -ge "$labs" ] || problems+="$estimates ESTIMATE lines for $labs labs, expected one a lab. "
fi
# each lab's seconds by part (results.json: tests/gpu/scaling.sh's table of where a student's
# time goes): present, not negative, and together no more than the lab's whole time; its start
# in the harness (start_seconds) is part of its first check's, at most the checks' together
parts=$(python3 - "$dir/results.json" <<'PY'
import json, sys
keys = ("where_seconds", "stop_seconds", "neighbours_seconds")
try:
    labs = json.load(open(sys.argv[1]))["labs"]
except (OSError, ValueError, KeyError) as e:
    sys.exit(print("results.json unreadable: %s" % e))
for lab in labs:
    got = [lab.get(k) for k in keys + ("seconds",)]
    if not all(isinstance(x, (int, float)) and x >= 0 for x in got):
        print("%s: its seconds by part %s" % (lab.get("lab"), dict(zip(keys + ("seconds",), got))))
    elif sum(got[:-1]) + sum(c.get("seconds") or 0 for c in lab.get("checks", [])) > got[-1] + 0.01:
        print("%s: its parts add up to more than its %.3f s" % (lab.get("lab"), got[-1]))
    start, checks = lab.get("start_seconds"), sum(c.get("seconds") or 0 for c in lab.get("checks", []))
    if not isinstance(start, (int, float)) or start < 0 or start > checks + 0.01:
        print("%s: its start_seconds %r, its checks' %.3f s" % (lab.get("lab"), start, checks))
PY
)
[ -z "$parts" ] || problems+="$parts. "
if [ -n "$problems" ]; then
    echo "FAIL emulated grading of $tree: $problems"
    tail -40 "$out"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "ok   emulated grading of $tree${LABS:+ (labs $LABS, each with its WHERE and ESTIMATE lines)}: $oks correctness checks OK in $labs labs, $skips speed checks skipped ($(grep '^Hidden\|seed' "$out" | head -1 | grep -o 'seed 0x[0-9a-f]*'))"
