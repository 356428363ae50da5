#!/usr/bin/env bash
# noise.sh - how much slower (or faster) the reference runs beside an honest student's process
# than alone, per speed check, on this GPU: the figures each lab's `slowdown_noise` (its
# grader/labs/NN-name/table.c) is set from.
#
#   tests/gpu/noise.sh         (OUT=folder for logs, default build/gpu-run/noise;
#                               NOISE_RUNS=3 gradings at most; NOISE_BUDGET_S=200: no grading
#                               is started that would likely end past this many seconds)
#
# Grades STUDENT=solutions (the reference against itself: nothing to blame) several times with
# GRADER_REMEASURE_SLOWDOWN=1, so that every speed check measures the reference beside the
# student's process and alone twice over, as grading does when it suspects a slowdown
# (grader/harness/harness_speed.cu, run_speed): three comparisons per check and grading. Prints per speed
# check the spread of those slowdowns, of the slowdown of each round beside (against the
# median alone), of the ratio (each grading's median, and each round's), what the idle probes
# saw after the calls (units with the GPU busy 1 ms or more after they answered), any blame
# or error (there must be none), and, last, a short table with a suggested bound per lab.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}/noise
mkdir -p "$OUT"
runs=${NOISE_RUNS:-3}
budget=${NOISE_BUDGET_S:-200}
start=$(date +%s)
done_runs=0
for i in $(seq "$runs"); do
    elapsed=$(( $(date +%s) - start ))
    if [ "$done_runs" -gt 0 ] && [ $(( elapsed + elapsed / done_runs )) -gt "$budget" ]; then
        echo "noise: stopping after $done_runs grading(s): another would end past ${budget} s"
        break
    fi
    t0=$(date +%s)
    GRADER_REMEASURE_SLOWDOWN=1 grader/driver/grade.sh STUDENT=solutions GRADE_DIR="$OUT/grade-$i" \
        >"$OUT/grade-$i.txt" 2>&1
    status=$?
    score=$(grep '^Score' "$OUT/grade-$i.txt")
    echo "noise: grading $i of the solutions: exit $status, $(( $(date +%s) - t0 )) s ($score)"
    done_runs=$i
done

python3 - "$OUT" "$done_runs" <<'EOF'
import json, math, os, re, statistics as st, sys

out, runs = sys.argv[1], int(sys.argv[2])

def med(x):
    return st.median(x) if x else float("nan")

def pct(x, q):
    s = sorted(x)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))] if s else float("nan")

def slowdown(beside, beside_null, alone, alone_null):  # as common/stats.c stats_slowdown
    return max(med(beside) - med(beside_null), 1e-9) / max(med(alone) - med(alone_null), 1e-9) - 1

# The lab tables' bounds as committed, for the table
bounds = {}
for d in sorted(os.listdir("grader/labs")):
    m = re.search(r"\.slowdown_noise\s*=\s*([0-9.]+)", open(f"grader/labs/{d}/table.c").read())
    bounds[d.split("-", 1)[1]] = float(m.group(1)) if m else 0.10

checks = {}  # (number, lab, check) -> figures over the gradings
problems = []
for i in range(1, runs + 1):
    try:
        res = json.load(open(f"{out}/grade-{i}/results.json"))
    except Exception as e:
        problems.append(f"grading {i}: no results.json ({e})")
        continue
    for lab in res["labs"]:
        for c in lab["checks"]:
            if c["verdict"] == "ERROR" or c.get("blame"):
                problems.append(f"grading {i}: {lab['number']} {lab['lab']} {c['name']}: "
                                f"{c['verdict']} {c.get('blame', '')} {c['message']}")
            if c["kind"] != "speed" or "speed" not in c:
                continue
            s = c["speed"]
            f = checks.setdefault((lab["number"], lab["lab"], c["name"]), {
                "comparisons": [], "round_slowdowns": [], "ratios": [], "round_ratios": [],
                "left": [0, 0], "ref_left": [0, 0], "verdicts": []})
            f["verdicts"].append(c["verdict"])
            f["ratios"].append(s["ratio_median"])
            f["comparisons"] += s.get("reference_slowdowns", [])
            f["left"][0] += s.get("left_running_units", 0)
            f["left"][1] += s.get("left_running_units_counted", 0)
            f["ref_left"][0] += s.get("left_running_reference_units", 0)
            f["ref_left"][1] += s.get("left_running_reference_units_counted", 0)
            ref, stu, null = s["reference_unit_ms"], s["student_unit_ms"], s["null_call_ms"]
            alone, alone_null = s["reference_alone_unit_ms"], s.get("null_call_alone_ms", [])
            again = s.get("measured_again", {})
            n0 = med(null)
            k_ref = s.get("calls_per_unit") or 1  # (per call: the student's units may hold fewer)
            k_stu = s.get("student_calls_per_unit") or k_ref
            f["round_ratios"] += [max(r - n0, 1e-9) / k_ref / (max(u - n0, 1e-9) / k_stu)
                                  for r, u in zip(ref, stu)]
            if alone and alone_null:
                a0 = med(alone) - med(alone_null)
                f["round_slowdowns"] += [max(r - n0, 1e-9) / max(a0, 1e-9) - 1 for r in ref]
                if again.get("reference_unit_ms"):
                    n2 = med(again["null_call_ms"])
                    a2 = med(again["reference_alone_unit_ms"]) - med(again["null_call_alone_ms"])
                    a = (a0 + a2) / 2  # the times alone before and after it
                    f["round_slowdowns"] += [max(r - n2, 1e-9) / max(a, 1e-9) - 1
                                             for r in again["reference_unit_ms"]]

def p(x):
    return f"{100 * x:+.1f}%"

print()
print(f"== per speed check, {runs} grading(s) with GRADER_REMEASURE_SLOWDOWN=1")
for (num, lab, name), f in sorted(checks.items()):
    c = f["comparisons"]
    print(f"{num} {lab:<11} {name}")
    print(f"    verdicts {' '.join(f['verdicts'])}; ratio per grading {min(f['ratios']):.3f} / "
          f"{med(f['ratios']):.3f} / {max(f['ratios']):.3f} (min/median/max), per round "
          f"{min(f['round_ratios']):.3f} .. {max(f['round_ratios']):.3f}")
    if c:
        print(f"    slowdown, {len(c)} comparisons: {p(min(c))} / {p(med(c))} / {p(max(c))} "
              f"(min/median/max): {' '.join(p(x) for x in c)}")
    if f["round_slowdowns"]:
        r = f["round_slowdowns"]
        print(f"    slowdown per round beside, {len(r)} rounds: {p(min(r))} / "
              f"p5 {p(pct(r, .05))} / {p(med(r))} / p95 {p(pct(r, .95))} / {p(max(r))}")
    print(f"    work left running (GPU busy >= 1 ms after the call answered): student's units "
          f"{f['left'][0]} of {f['left'][1]}, reference's {f['ref_left'][0]} of {f['ref_left'][1]}")
for x in problems:
    print("PROBLEM:", x)

# The short table: per lab, the largest comparison of any of its checks, and a bound with room
# (1.5 times it, at least 2%, rounded up to a whole percent).
print()
print(f"{'lab':<15} {'runs':>4} {'cmp':>4} {'slowdown min/med/max':>24} {'ratio min/med/max':>20} "
      f"{'left s/r':>9} {'now':>5} {'suggest':>7}")
labs = {}
for (num, lab, name), f in sorted(checks.items()):
    l = labs.setdefault((num, lab), {"c": [], "r": [], "ls": 0, "lr": 0, "runs": 0})
    l["c"] += f["comparisons"]
    l["r"] += f["ratios"]
    l["ls"] += f["left"][0]
    l["lr"] += f["ref_left"][0]
    l["runs"] = max(l["runs"], len(f["ratios"]))
for (num, lab), l in sorted(labs.items()):
    c = l["c"] or [float("nan")]
    worst = max(c)
    suggest = (math.ceil(100 * max(0.02, 1.5 * worst)) / 100 if not math.isnan(worst)
               else float("nan"))
    print(f"{num + ' ' + lab:<15} {l['runs']:>4} {len(l['c']):>4} "
          f"{p(min(c)):>7} {p(med(c)):>7} {p(worst):>7}   "
          f"{min(l['r']):.3f} {med(l['r']):.3f} {max(l['r']):.3f}   {l['ls']:>3}/{l['lr']:<3} "
          f"{100 * bounds.get(lab, 0.10):>4.0f}% {100 * suggest:>6.0f}%")
print(f"noise: {len(problems)} blame(s) or error(s) in honest gradings (must be 0)")
EOF
