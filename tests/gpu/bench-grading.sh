#!/usr/bin/env bash
# bench-grading.sh - how long grading takes, lab by lab: the figures to hold before and after a
# change to the grader (make bench-grading; GPU only).
#
#   tests/gpu/bench-grading.sh            warm make grade of the solutions (RUNS times, default
#                                         1) and of the skeletons, then the table
#   BATCH_N=N tests/gpu/bench-grading.sh    also make grade-batch of N students (copies of the
#                                         solutions and the skeletons, alternating:
#                                         tests/gpu/make-batch.sh) on GPU 0: students per hour,
#                                         of the whole batch and once its first student is
#                                         built (the students' labs' own time: a class's rate)
#   tests/gpu/bench-grading.sh --table results.json [...]   the table of runs already made
#
# Every run builds first (make all and the runners, not timed: "warm" is the state a student is
# in from the second make grade on). Per lab the table gives the wall time of the correctness
# checks and of the speed checks (each a sum of its checks' own times), the WHERE hint's, the
# lab's whole time, and for a speed check the rounds it took, why it stopped and its ratio:
# the self-check (the solutions graded as a student's) must stay within 0.98-1.02. A speed check
# of a run made by a grader that records its stages also shows them, in seconds: head (before
# its setup: the SM clock read), setup (inputs and calibration), warm (phase 1's warm-up round,
# where a fresh student process starts), inter (the kept rounds: student, reference and null
# call side by side), verif (the timed outputs' record), alone (the reference with the
# student's process gone), ceil (the ceiling), tail (its problems freed) and rest (its time as
# the driver saw it, less all of these). Then, per speed check, a kept round's wall time beside
# its timed calls and its untimed work by part (fresh inputs and their hashes, poisons, the
# checks after each call, the idle probes); per correctness check its time; per lab its time
# outside its checks (a harness's start, waiting for the next lab's to be ready).
#
# Output: $OUT (default build/bench-grading): the logs, each run's results.json, table.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/bench-grading}
GRADE_DIR_OF() { echo "${BUILD:-build}/grade"; }

table() {
    python3 - "$@" <<'EOF'
import json, sys

def load(path):
    with open(path) as f:
        return json.load(f)

def cell(x, fmt="%.1f"):
    return "-" if x is None else fmt % x

runs = []
for arg in sys.argv[1:]:
    label, _, path = arg.partition("=")
    if not path:
        label, path = arg, arg
    runs.append((label, load(path)))

for label, r in runs:
    print("== %s (seed %s)" % (label, r.get("seed", "?")))
    print("%-13s %7s %7s %7s %7s | %6s %9s %7s %5s %5s %5s %5s %5s %5s %5s %5s %5s" %
          ("lab", "correct", "speed", "where", "lab", "rounds", "stop", "ratio",
           "head", "setup", "warm", "inter", "verif", "alone", "ceil", "tail", "rest"))
    tot = {"c": 0.0, "s": 0.0, "w": 0.0, "l": 0.0}
    for lab in r.get("labs", []):
        checks = lab.get("checks", [])
        corr = sum(c.get("seconds", 0) for c in checks if c.get("kind") != "speed")
        spd = sum(c.get("seconds", 0) for c in checks if c.get("kind") == "speed")
        where = lab.get("where_seconds")
        whole = lab.get("seconds")
        tot["c"] += corr; tot["s"] += spd; tot["w"] += where or 0; tot["l"] += whole or 0
        speeds = [c for c in checks if c.get("kind") == "speed"]
        first = True
        for c in speeds or [None]:
            sp = (c or {}).get("speed") or {}
            st = sp.get("stages") or {}
            head = ("%-13s %7s %7s %7s %7s" % (lab.get("number", "") + " " + lab.get("lab", ""),
                    cell(corr), cell(spd), cell(where), cell(whole))) if first else " " * 45
            first = False
            ratio = sp.get("ratio_median")
            # warm: phase 1's warm-up rounds (its time less the rounds kept); rest: the check's
            # time as the driver saw it less every stage the harness measured
            inter, phase = st.get("interleaved_s"), st.get("phase_s")
            warm = phase - inter if inter is not None and phase is not None else None
            parts = [st.get(k) for k in ("head_s", "setup_s", "phase_s", "verify_s", "alone_s",
                                         "again_s", "ceiling_s", "tail_s")]
            rest = (c.get("seconds", 0) - sum(x or 0 for x in parts)
                    if c and st.get("head_s") is not None else None)
            print("%s | %6s %9s %7s %5s %5s %5s %5s %5s %5s %5s %5s %5s%s" % (
                head, sp.get("rounds", "-"), st.get("stop", "-")[:9],
                cell(ratio, "%.3f"), cell(st.get("head_s"), "%.2f"), cell(st.get("setup_s"), "%.2f"),
                cell(warm, "%.2f"), cell(inter, "%.2f"), cell(st.get("verify_s"), "%.2f"),
                cell(st.get("alone_s"), "%.2f"), cell(st.get("ceiling_s"), "%.2f"),
                cell(st.get("tail_s"), "%.2f"), cell(rest, "%.2f"),
                "  " + c.get("verdict", "") if c else ""))
    print("%-13s %7.1f %7.1f %7.1f %7.1f" % ("all labs", tot["c"], tot["s"], tot["w"], tot["l"]))
    # per correctness check, and the lab's time outside its checks (its harness's start, ...)
    # a kept round's wall time against the time of its timed calls (medians): the rest of a
    # round is its untimed work (fresh inputs, poisons, guards, comparisons, idle probes)
    print("speed rounds, ms: a round's wall time | its timed calls (student + reference + null, "
          "medians) | its untimed work by part (phase 1's, warm-up round included, per round)")
    for lab in r.get("labs", []):
        for c in lab.get("checks", []):
            sp = c.get("speed") or {}
            st = sp.get("stages") or {}
            if c.get("kind") != "speed" or not sp.get("rounds") or st.get("interleaved_s") is None:
                continue
            n = sp.get("calls_per_unit") or 1
            n_stu = sp.get("student_calls_per_unit") or n  # (fewer where it ran far below)
            null = sp.get("null_call_ms_median") or 0
            calls = n_stu * (sp.get("student_ms_median") or 0) + n * (sp.get("reference_ms_median") or 0) + 3 * null
            # phase 1's untimed work by part, per round (warm-up rounds included)
            n_all = sp["rounds"] + 1
            part = lambda k: "%5.1f" % (1e3 * st[k] / n_all) if st.get(k) is not None else "    -"
            print("  %-13s round %7.1f | calls %7.1f | refresh %s prepare %s settle %s probe %s" % (
                lab.get("number", "") + " " + lab.get("lab", ""),
                1e3 * st["interleaved_s"] / sp["rounds"], calls, part("refresh_s"),
                part("prepare_s"), part("settle_s"), part("probe_s")))
    print("correctness checks, seconds each; outside: the lab's time outside its checks")
    for lab in r.get("labs", []):
        checks = lab.get("checks", [])
        each = " ".join("%.2f" % c.get("seconds", 0) for c in checks if c.get("kind") != "speed")
        outside = (lab.get("seconds") or 0) - sum(c.get("seconds", 0) for c in checks) - \
            (lab.get("where_seconds") or 0)
        print("  %-13s outside %5.2f | %s" % (lab.get("number", "") + " " + lab.get("lab", ""),
                                            outside, each))
    print()
EOF
}

if [ "${1:-}" = --table ]; then
    shift
    table "$@"
    exit $?
fi

mkdir -p "$OUT"
summary=$OUT/table.txt
: >"$summary"
jobs=$(nproc)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
    --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$summary"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with changes)')" | tee -a "$summary"

start=$(date +%s%N)
# (the emulated builds too: make grade's WHERE count runs them, and builds them if they are missing)
if ! { make -j"$jobs" all && make -j"$jobs" runners STUDENT=solutions && make -j"$jobs" runners &&
       make -j"$jobs" runners STUDENT=solutions EMU=1 && make -j"$jobs" runners EMU=1; } >"$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"
    exit 1
fi
echo "build (before the timed runs, not part of them): $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$summary"

ms_of() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
args=()
for who in solutions labs; do
    n=1
    [ "$who" = solutions ] && n=${RUNS:-1}
    for i in $(seq "$n"); do
        start=$(date +%s%N)
        make --no-print-directory grade STUDENT=$who >"$OUT/grade-$who-$i.txt" 2>&1
        status=$?
        ms=$(ms_of "$start")
        cp "$(GRADE_DIR_OF)/results.json" "$OUT/results-$who-$i.json"
        printf 'make grade STUDENT=%s (warm), run %d: %d.%01d s, exit %d, %s\n' "$who" "$i" \
            $((ms / 1000)) $(((ms % 1000) / 100)) "$status" \
            "$(grep '^Score' "$OUT/grade-$who-$i.txt")" | tee -a "$summary"
        args+=("$who run $i=$OUT/results-$who-$i.json")
    done
done

if [ -n "${BATCH_N:-}" ]; then
    subs=$OUT/batch/submissions
    rm -rf "$OUT/batch"
    tests/gpu/make-batch.sh "$subs" "$BATCH_N"
    start=$(date +%s%N)
    make --no-print-directory grade-batch SUBMISSIONS="$subs" OUT="$OUT/batch/out" GPUS=0 \
        >"$OUT/batch.txt" 2>&1
    status=$?
    ms=$(ms_of "$start")
    echo "make grade-batch GPUS=0, $BATCH_N students (half solutions, half skeletons): $((ms / 1000)) s, exit $status: $(( BATCH_N * 3600000 / (ms > 0 ? ms : 1) )) students per hour" | tee -a "$summary"
    # The rate is of this batch only if it is the batch it claims: every solutions student
    # (odd-numbered) at full marks. One that is not (a file that did not build) took less time.
    # (the columns by their names in the header: the gradebook has more after total and max)
    short=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                     $1 ~ /^student [0-9]*[13579]$/ && $col["total"] != $col["max"] {
                         printf "%s %s/%s; ", $1, $col["total"], $col["max"] }' \
        "$OUT/batch/out/gradebook.csv" 2>/dev/null)
    # The rate of a long batch: the first student's build, which nothing hides, is paid once a
    # class; after it the GPU's time per student is its labs' time (their prepares run meanwhile).
    python3 - "$OUT/batch/out/students" <<'EOF' | tee -a "$summary"
import glob, json, os, sys
secs = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "results.json"))):
    with open(path) as f:
        secs.append(sum(lab.get("seconds", 0) for lab in json.load(f).get("labs", [])))
if secs:
    mean = sum(secs) / len(secs)
    print("  of which the students' labs: %s s, %.1f s a student: %d students per hour once the "
          "first is built" % (" ".join("%.1f" % x for x in secs), mean, 3600 / mean))
EOF
    # Each student's labs in the table too, under its name in the batch (gradebook.jsonl maps
    # the students' folders, named by id, to their names).
    while IFS=$'\t' read -r id name; do
        f=$OUT/batch/out/students/$id/results.json
        [ -f "$f" ] || continue
        cp "$f" "$OUT/results-batch-$id.json"
        args+=("batch, $name=$OUT/results-batch-$id.json")
    done < <(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("%s\t%s" % (r["id"], r["student"]))' "$OUT/batch/out/gradebook.jsonl" 2>/dev/null)
    if [ -n "$short" ] || [ ! -s "$OUT/batch/out/gradebook.csv" ]; then
        echo "batch NOT AS MADE: the solutions students must score full marks (${short:-no gradebook}): the students per hour above are not of this batch (see $OUT/batch.txt)" | tee -a "$summary"
        batch_bad=1
    fi
fi

echo | tee -a "$summary"
table "${args[@]}" | tee -a "$summary"
[ -z "${batch_bad:-}" ] || exit 1
