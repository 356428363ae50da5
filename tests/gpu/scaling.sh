#!/usr/bin/env bash
# scaling.sh - a class graded on one node: students per hour on one GPU and on several, and
# where each student's seconds go (make grade-batch, the same batch recipe as bench-grading's).
#
#   tests/gpu/scaling.sh [GPU_COUNTS]     GPU_COUNTS: the numbers of GPUs to grade with, "1 2"
#                                         (default: 1, 2 and 4, those the machine has)
#   PER_GPU=8 (students per GPU; half solutions, half skeletons: tests/gpu/make-batch.sh)
#   SEED=0x3a5e7b1c9d2f4e68 (one seed for every run: the gradebooks must be byte-identical)
#   REUSE=1 (a run already in the output folder is read back, not graded again: one device call
#   can grade on one GPU, the next on several; OUT=build/scaling keeps the folder between them)
#   LIMIT=<s> (each batch stopped after that many seconds, to fit a device call's limit: its
#   line then says how many students were graded, and the rate counts those alone)
#
# Each run grades PER_GPU x N students with GPUS=0,...,N-1 from a built grader (make all, not
# timed: it builds the CPU emulator's pieces for the WHERE line too). Printed per run, in the
# form tests/gpu/results/ keeps:
#   batch GPUS=<sel> (<N> GPU(s) here, <GPU name>): <M> students in <T> s: <R> students per hour
#   scaling: <N> GPUs <X>x one GPU (<GPU name>)        (against the 1-GPU run of this call)
# then, per run, the mean of a student's seconds: its labs' own time (grading, on its GPU), the
# WHERE counts' (on the CPUs), the rest of its GPU slot (wall x GPUs / students, less those:
# waiting for its build, the host-link lock, starting), a speed check's seconds by stage (set-up,
# the warm-up round, the kept rounds and inside them the calls' own timed units, the reference
# alone, the end), and the self-check (the speed ratios of
# the solution students: each must be within 0.98-1.02), and the CUDA processes the batch
# started (harnesses and workers, tests/gpu/count-procs.py: the driver starts one at a time
# host-wide, tests/gpu/cuda-start.sh), and the seconds the harnesses spent in the driver's
# calls (GRADER_COSTS=1: starting and ending workers, making and giving back shared memory; a
# fresh worker's first, empty command; the buffers the workers mapped, by their account),
# and how often a passing speed check measured the reference alone and how often it used the
# batch's kept measurement (grader/harness/alone_cache.h; GRADER_ALONE_CACHE_S=0 in the environment
# turns that off, for a run to compare with).
# Logs under $OUT (default build/scaling). GPU only.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/scaling}
mkdir -p "$out"
per=${PER_GPU:-8}
seed=${SEED:-0x3a5e7b1c9d2f4e68}
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
counts=${1:-$(for n in 1 2 4; do [ "$n" -le "$have" ] && echo "$n"; done)}
[ "$have" -ge 1 ] || { echo "scaling.sh: no GPU here" >&2; exit 2; }
# Built before every call, not only the first: a tree copied again (a device call's) has new
# times on its files, and a build inside the batch would be timed as grading (32 s on 64 cores).
make -j"$(nproc)" all >>"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
one=
# against_one N RATE: the 1-GPU run's rate kept (N=1), or run N's ratio to it printed, in the
# form results/ keeps; with no 1-GPU run in this call yet (graded or read back), says so
against_one() {
    if [ "$1" = 1 ]; then
        one=$2
    elif [ -n "$one" ]; then
        echo "scaling: $1 GPUs $(python3 -c "print('%.2f' % ($2 / $one))")x one GPU ($name)" |
            tee -a "$out/results.txt"
    else
        echo "  (no 1-GPU run in $out yet: \"1 $1\" with REUSE=1 grades one and reads this back)"
    fi
}
for n in $counts; do
    sel=$(seq -s, 0 $((n - 1)))
    # REUSE=1: a run this folder already holds (an earlier call's, the same build) is read back,
    # not graded again, so that one device call can grade on one GPU and the next on several
    if [ "${REUSE:-0}" = 1 ] && [ -s "$out/out$n/gradebook.csv" ] && [ -s "$out/rate$n" ]; then
        echo "(GPUS=$sel: the run already in $out/out$n)"
        against_one "$n" "$(cat "$out/rate$n")"
        continue
    fi
    subs=$out/subs$n
    tests/gpu/make-batch.sh "$subs" $((per * n)) >/dev/null
    rm -rf "$out/out$n"
    # beside the batch: each GPU's utilization every half second, the CPUs' busy share every second
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 \
        >"$out/gpu$n.csv" 2>/dev/null &
    gpu_pid=$!
    (prev=; while :; do read -r _ a b c d e f g _ </proc/stat
        now="$((a + b + c + f + g)) $((a + b + c + d + e + f + g))"
        [ -n "$prev" ] && echo "$prev $now"; prev=$now; sleep 1; done) >"$out/cpu$n.txt" &
    cpu_pid=$!
    # and the CUDA processes the batch starts: a harness a student, its workers (count-procs.py)
    python3 tests/gpu/count-procs.py harness/grade-driver@/gpu/ worker >"$out/procs$n.txt" &
    procs_pid=$!
    t0=$(date +%s%N)
    GRADER_COSTS=1 timeout -s INT "${LIMIT:-0}" make grade-batch SUBMISSIONS="$subs" \
        OUT="$out/out$n" GPUS="$sel" SEED="$seed" >"$out/batch$n.log" 2>&1
    t1=$(date +%s%N)
    kill "$gpu_pid" "$cpu_pid" "$procs_pid" 2>/dev/null
    wait "$gpu_pid" "$cpu_pid" "$procs_pid" 2>/dev/null
    m=$((per * n))
    # (a batch stopped at LIMIT: the students whose results were written, and the time to then)
    done_n=$(ls "$out/out$n"/students/*/results.json 2>/dev/null | wc -l)
    cut=
    if [ "$done_n" -lt "$m" ]; then
        if [ "$(( (t1 - t0) / 1000000000 ))" -ge "${LIMIT:-0}" ] && [ "${LIMIT:-0}" != 0 ]; then
            cut=" (stopped at LIMIT=$LIMIT s: $done_n of $m graded)"
        else
            cut=" (only $done_n of $m graded: $out/batch$n.log says why)"
        fi
        m=$done_n
    fi
    t=$(python3 -c "print('%.1f' % (($t1 - $t0) / 1e9))")
    rate=$(python3 -c "print('%.1f' % ($m * 3600 / $t))")
    # (a build inside the batch is timed with it: said, so that a rate never hides one)
    built=$(sed -n 's/^Built in \([0-9.]*\) s.*/\1/p' "$out/batch$n.log" | head -1)
    if [ -n "$built" ] && python3 -c "import sys; sys.exit(0 if float('$built') >= 1 else 1)"; then
        cut="$cut (of it, $built s building what every student shares)"
    fi
    echo "batch GPUS=$sel ($n GPU(s) here, $name): $m students in $t s: $rate students per hour$cut" |
        tee -a "$out/results.txt"
    echo "$rate" >"$out/rate$n"
    against_one "$n" "$rate"
    python3 - "$out/out$n" "$n" "$t" "$out/gpu$n.csv" "$out/cpu$n.txt" "$out/procs$n.txt" \
        "${cut:+cut}" <<'PY' | tee -a "$out/results.txt"
import glob, json, re, sys
out, gpus, wall = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
gpu_csv, cpu_txt, procs_txt = sys.argv[4], sys.argv[5], sys.argv[6]  # the samplers' files
was_cut = sys.argv[7] == "cut"  # stopped at LIMIT: a student begun and not finished
labs_s, where_s, ratios, n = 0.0, 0.0, [], 0
by_lab = {}  # the self-check's ratios, lab by lab
outside = []  # the self-check's ratios outside 0.98-1.02: lab, ratio, 95% interval, rounds, stop
# The labs' seconds by part besides the WHERE count's: the correctness checks, the speed checks
# (inside them the timed rounds), the labs' starts in the harness (part of their first checks'
# seconds), the labs' ends (their workers ended: the driver's teardown of their GPU contexts
# and memory); the rest is between checks and the reports
part = {"correct": 0.0, "speed": 0.0, "rounds": 0.0, "start": 0.0, "stop": 0.0}
# A speed check's seconds by stage (the harness's `speed` record, results.json's stages): its
# set-up (the fresh student process waited for, the problems made and shared), its warm-up
# round (the phase less its kept rounds), its kept rounds (inside them the calls' own timed
# units, and the work between them: inputs made afresh, outputs saved and compared, counted
# with the warm-up round's share), the reference alone, the ceiling, its end (problems and
# workers freed); what the check took beyond these is the rest
stage = dict.fromkeys(("setup", "warmup", "kept", "calls", "between", "alone", "ceiling", "end",
                       "rest"), 0.0)
# The reference alone (a passing speed check's second measurement): measured, or the batch's
# kept one (grader/harness/alone_cache.h; GRADER_ALONE_CACHE_S=0 turns it off)
measured, kept, alone_s = 0, 0, 0.0
for f in glob.glob(out + "/students/*/results.json"):
    r = json.load(open(f))
    n += 1
    for lab in r.get("labs", []):
        labs_s += lab.get("seconds") or 0
        where_s += lab.get("where_seconds") or 0
        part["start"] += lab.get("start_seconds") or 0
        part["stop"] += lab.get("stop_seconds") or 0
        for c in lab.get("checks", []):
            if c.get("kind") == "speed":
                sp = c.get("speed") or {}
                st = sp.get("stages") or {}
                got = {k: st.get(k) or 0 for k in ("setup_s", "phase_s", "interleaved_s", "alone_s",
                                                   "again_s", "ceiling_s", "tail_s", "refresh_s",
                                                   "prepare_s", "settle_s")}
                part["speed"] += c.get("seconds") or 0
                part["rounds"] += got["interleaved_s"]
                stage["setup"] += got["setup_s"]
                stage["warmup"] += got["phase_s"] - got["interleaved_s"]
                stage["kept"] += got["interleaved_s"]
                stage["calls"] += 1e-3 * sum(sum(sp.get(k) or []) for k in (
                    "student_unit_ms", "reference_unit_ms", "null_call_ms"))
                stage["between"] += got["refresh_s"] + got["prepare_s"] + got["settle_s"]
                stage["alone"] += got["alone_s"] + got["again_s"]
                stage["ceiling"] += got["ceiling_s"]
                stage["end"] += got["tail_s"]
                stage["rest"] += (c.get("seconds") or 0) - got["setup_s"] - got["phase_s"] - \
                    got["alone_s"] - got["again_s"] - got["ceiling_s"] - got["tail_s"]
                if st.get("alone_cached_age_s") is not None:
                    kept += 1
                elif got["alone_s"] > 0:
                    measured += 1
                    alone_s += got["alone_s"]
            else:
                part["correct"] += c.get("seconds") or 0
        if r.get("score") == r.get("max"):  # a solution student: its ratios are the self-check
            for c in lab.get("checks", []):
                sp = c.get("speed") or {}
                if c.get("kind") == "speed" and sp.get("ratio_median"):
                    ratios.append(sp["ratio_median"])
                    by_lab.setdefault(lab.get("lab", "?"), []).append(sp["ratio_median"])
                    if not 0.98 <= sp["ratio_median"] <= 1.02:
                        outside.append("%s %.3f [%.3f-%.3f] %d rounds, %s" % (
                            lab.get("lab", "?"), sp["ratio_median"], sp.get("ratio_ci95_lo", 0),
                            sp.get("ratio_ci95_hi", 0), sp.get("rounds", 0),
                            (sp.get("stages") or {}).get("stop", "?")))
slot = wall * gpus / max(n, 1)
print("  per student (mean of %d): GPU slot %.1f s = labs %.1f s (WHERE counts inside: %.1f s) + "
      "the rest %.1f s" % (n, slot, labs_s / max(n, 1), where_s / max(n, 1), slot - labs_s / max(n, 1)))
k = 1.0 / max(n, 1)
print("  labs by part, seconds a student: correctness checks %.1f, speed checks %.1f (timed rounds "
      "%.1f), WHERE %.1f, labs started in the harness %.1f (inside the checks'), labs ended %.1f, the "
      "rest %.1f" % (
      part["correct"] * k, part["speed"] * k, part["rounds"] * k, where_s * k,
      part["start"] * k, part["stop"] * k,
      (labs_s - part["correct"] - part["speed"] - where_s - part["stop"]) * k))
print("  speed checks by stage, seconds a student: set-up %.1f, warm-up %.1f, kept rounds %.1f (the "
      "calls' timed units %.1f, inputs made and outputs compared %.1f), reference alone %.1f, "
      "ceiling %.1f, the end %.1f, the rest %.1f" % tuple(stage[x] * k for x in (
          "setup", "warmup", "kept", "calls", "between", "alone", "ceiling", "end", "rest")))
try:  # the CUDA processes started: each one's start and end the driver serializes host-wide
    h, w = map(int, open(procs_txt).read().split()[1::2])  # (NAME COUNT, in the order asked)
    print("  CUDA processes started: %d harnesses + %d workers = %d, %.1f a student%s" %
          (h, w, h + w, (h + w) / max(n, 1),
           " (over the %d graded: the processes of those begun and not finished count too)" % n
           if was_cut else ""))
except (OSError, ValueError, IndexError):
    print("  CUDA processes started: not counted")
# The seconds each harness spent in the driver's calls (GRADER_COSTS=1: the last "costs" line
# of each lab's harness log, summed per student): the process starts and ends and the shared
# memory made and given back that a batch on several GPUs queues on.
cost = []
for f in glob.glob(out + "/work/*/grade/*.harness.log"):
    last = None
    for line in open(f, errors="replace"):
        if line.startswith("harness: costs after check"):
            last = line
    if last:
        cost.append([float(x) for x in re.findall(r"\d+\.\d+|\d+", last.split(":", 2)[2])])
if cost:
    width = min(len(v) for v in cost)
    t = [sum(v[i] for v in cost) / max(n, 1) for i in range(width)]
    print("  driver calls, seconds a student: waiting for workers to start %.2f, ending %.0f "
          "workers %.2f; device memory made %.0f times %.2f, given back %.0f times %.2f; host "
          "memory made %.0f times %.2f, given back %.2f" % (t[2], t[4], t[5], t[6], t[7], t[8],
                                                           t[9], t[10], t[11], t[13]))
    if width >= 18:  # (logs of a grader that kept these: a fresh worker's first command, an
        # empty one, which waits for what is left of its GPU context's making and loads its
        # object; the buffers the workers mapped, as they say)
        print("  fresh workers' first (empty) commands %.0f, %.2f s a student; buffers mapped in "
              "the workers %.0f, %.2f s (their own account)" % (t[14], t[15], t[16], t[17]))
if ratios:
    print("  self-check: %d ratios, %.3f-%.3f%s" % (len(ratios), min(ratios), max(ratios),
          "  OUTSIDE 0.98-1.02" if outside else ""))
    for line in sorted(outside):  # (a stop "clear" ends once the verdict is certain, not precise)
        print("    outside: " + line)
    # each lab's: the median of its ratios, how many lie below 1 (a timing that favours one
    # side leans the whole lab's ratios one way), their range
    print("  self-check by lab (median, below 1, range): " + "; ".join(
        "%s %.3f, %d/%d, %.3f-%.3f" % (name, sorted(v)[len(v) // 2], sum(x < 1 for x in v), len(v),
                                      min(v), max(v)) for name, v in sorted(by_lab.items())))
print("  reference alone: measured %d times (%.2f s a student), the batch's kept one used %d times"
      % (measured, alone_s / max(n, 1), kept))
# Where a student's seconds go, lab by lab: the mean of the solution students' and of the
# skeleton students' lab wall times, and inside them the WHERE count's and the speed checks'
per = {}
for f in glob.glob(out + "/students/*/results.json"):
    r = json.load(open(f))
    kind = "sol" if r.get("score") == r.get("max") else "skel"
    for lab in r.get("labs", []):
        d = per.setdefault(lab.get("lab", lab.get("name", "?")), {"sol": [], "skel": []})
        sp = [c for c in lab.get("checks", []) if c.get("kind") == "speed"]
        speed = sum(c.get("seconds") or 0 for c in sp)
        rounds = sum((c.get("speed") or {}).get("rounds") or 0 for c in sp)
        inter = sum(((c.get("speed") or {}).get("stages") or {}).get("interleaved_s") or 0 for c in sp)
        d[kind].append((lab.get("seconds") or 0, lab.get("where_seconds") or 0, speed, rounds,
                        1e3 * inter / max(rounds, 1)))
def mean(xs, i):
    return sum(x[i] for x in xs) / len(xs) if xs else float("nan")
print("  lab seconds, mean: solutions (lab = speed checks + rest; where; the speed checks' rounds,"
      " ms a round) | skeletons (same)")
for lab in sorted(per):
    d = per[lab]
    print("    %-14s %5.1f = %4.1f + %4.1f; where %4.1f; %4.1f r %5.1f ms |"
          " %5.1f = %4.1f + %4.1f; where %4.1f; %4.1f r %5.1f ms" % (
        lab[:14], mean(d["sol"], 0), mean(d["sol"], 2), mean(d["sol"], 0) - mean(d["sol"], 2),
        mean(d["sol"], 1), mean(d["sol"], 3), mean(d["sol"], 4), mean(d["skel"], 0),
        mean(d["skel"], 2), mean(d["skel"], 0) - mean(d["skel"], 2), mean(d["skel"], 1),
        mean(d["skel"], 3), mean(d["skel"], 4)))
# Student by student, in the batch's order: the labs' seconds and each speed check's rounds and
# how it stopped (a check that samples longer in a batch than alone is a noisier one)
def order(f):  # when its grading started (ids are names, not the batch's order), then its id
    return (json.load(open(f)).get("started") or "", f)
for f in sorted(glob.glob(out + "/students/*/results.json"), key=order):
    r = json.load(open(f))
    kind = "sol " if r.get("score") == r.get("max") else "skel"
    cells = []
    for lab in r.get("labs", []):
        for c in lab.get("checks", []):
            sp = c.get("speed") or {}
            if c.get("kind") == "speed" and sp.get("rounds"):
                cells.append("%s %d%s" % (str(lab.get("number", lab.get("lab", "?")))[:2], sp["rounds"],
                                          "" if sp.get("stop") in ("precise", None) else " " + sp["stop"][:6]))
    print("  student %s %s: labs %5.1f s; rounds: %s" % (f.split("/")[-2], kind,
          sum(l.get("seconds") or 0 for l in r.get("labs", [])), ", ".join(cells)))
util = {}
try:
    for line in open(gpu_csv):
        i, u = [x.strip() for x in line.split(",")[:2]]
        util.setdefault(i, []).append(float(u))
except (OSError, ValueError):
    pass
cpu = []
try:
    for line in open(cpu_txt):
        b0, t0, b1, t1 = map(int, line.split())
        if t1 > t0:
            cpu.append((b1 - b0) / (t1 - t0))
except (OSError, ValueError):
    pass
print("  GPU utilization, mean over the batch: %s; CPUs busy: mean %.0f%%, %.0f%% of seconds over 90%%" % (
    ", ".join("GPU %s %.0f%%" % (i, sum(v) / len(v)) for i, v in sorted(util.items())) or "none read",
    100 * sum(cpu) / max(len(cpu), 1), 100 * sum(1 for c in cpu if c > 0.9) / max(len(cpu), 1)))
PY
done
# The same seed, the same grades: each student's row compared across the runs that grade them,
# every column but the last as it is (points, totals, correctness, state) and the last, the reason
# (the first check that lost points, in words and measured figures: "0.41x the reference"), with
# its figures masked: a slower student's measured ratio is never twice the same, while its points
# and verdicts must be.
python3 - "$out" $counts <<'PY' | tee -a "$out/results.txt"
import csv, os, re, sys
out, counts = sys.argv[1], sys.argv[2:]
# (a batch stopped at LIMIT writes no gradebook: its run is left out of the comparison)
books = {n: {r[0]: r for r in csv.reader(open("%s/out%s/gradebook.csv" % (out, n), newline=""))}
         for n in counts if os.path.exists("%s/out%s/gradebook.csv" % (out, n))}
for n in counts:
    if n not in books:
        print("gradebook: none written with %s GPU(s) (the batch was stopped at LIMIT): not compared" % n)
counts = [n for n in counts if n in books]
first = books[counts[0]] if counts else {}
for n in counts[1:]:
    same = [k for k in first if k in books[n]]
    masked = lambda row: row[:-1] + [re.sub(r"[0-9]+(\.[0-9]+)?", "#", row[-1])] if row else row
    diff = [k for k in same if masked(first[k]) != masked(books[n][k])]
    figures = [k for k in same if k not in diff and first[k] != books[n][k]]
    print("gradebook: %d students graded with GPUS=1 and with %s GPUs: %s%s" %
          (len(same) - 1, n, "every row identical" if not diff else "rows DIFFER: %s" % diff,
           "" if not figures else " (%d differ only in a measured figure of the reason: %s)"
           % (len(figures), figures)))
PY
