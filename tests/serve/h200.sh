#!/usr/bin/env bash
# h200.sh - the course server on a GPU host (an H200): 16 students submitting at once, each
# report held to make grade's for the same files, and the time from make submit to its report in
# a quiet queue against make grade's for the same lab.
#
#   tests/serve/h200.sh            (OUT=dir for the logs, default build/serve-h200; LAB=01)
#
# It builds what it needs (the server's packages from BUILD/serve/deps when the host has no
# registry: make them first where one is reachable, SERVE_DEPS=download grader/serve/deps.sh
# build, and carry build/serve/deps), starts a course of 16 on a free port with one seed, and:
#   1. quiet queue, two rounds: make grade STUDENT=<fresh copy> LAB, then make submit of the
#      same file (a fresh copy too: each compiles the student's file once), each timed whole;
#   2. 16 students at once (8 the reference solution's file, 8 the untouched skeleton), each
#      report compared with make grade's for the same file and seed: every line the same but
#      times, paths and the measured figures of a speed line (its verdict kept), the same exit;
#   3. the store: each of the 16 graded once.
# The last lines are a table; exit 1 when a report differs, a submission is lost or graded
# twice, or submit takes more than 2 s longer than make grade.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/serve-h200}
LAB=${LAB:-01}
BUILD=${BUILD:-build}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log=$OUT/h200.log
exec > >(tee "$log") 2>&1
say() { echo "== $*"; }

folder=$(ls -d labs/"$LAB"-* | head -n 1)
folder=${folder#labs/}
file=$(basename "$(ls labs/"$folder"/*.cu | head -n 1)")
say "lab $folder ($file); logs in $OUT"
say "building (the server's programs, make grade's shared pieces)"
make -s -j"$(nproc)" serve-programs BUILD="$BUILD" || { echo "FAIL the server's programs did not build"; exit 1; }
ldd "$BUILD/host/serve-course" | grep 'not found' && { echo "FAIL a library of the server is missing on this host (above)"; exit 1; }
make -s -j"$(nproc)" batch-prebuild BATCH_LABS="${folder#*-}" BUILD="$BUILD" >"$OUT/prebuild.log" 2>&1 ||
    { echo "FAIL make batch-prebuild (see $OUT/prebuild.log)"; exit 1; }

course=$OUT/course
rm -rf "$course" "$OUT/trees" "$OUT/submit-logs"
{ echo name; for i in $(seq -w 1 16); do echo "student$i"; done; } > "$OUT/roster.csv"
"$BUILD/host/serve-roster" "$course" "$OUT/roster.csv" >/dev/null
seed=0x5eed000000000016
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
SEED=$seed BUILD=$BUILD GPUS=all RATE=60 "$BUILD/host/serve-course" "$course" "$port" > "$OUT/server.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q '^Serving' "$OUT/server.log" && break; sleep 0.2; done
head -n 1 "$OUT/server.log"
token() { awk -F, -v n="student$1" '$1 == n { print $2 }' "$course/tokens.csv"; }
tree() { # tree NAME SOURCE: a fresh tree with SOURCE as the lab's file
    mkdir -p "$OUT/trees/$1/$folder"
    cp "$2" "$OUT/trees/$1/$folder/$file"
    echo "$OUT/trees/$1"
}
submit() { # submit N TREE > its output; its exit status
    SERVER=http://127.0.0.1:$port TOKEN=$(token "$1") SUBMIT_LOGS="$OUT/submit-logs" python3 grader/serve/submit.py submit \
        "$BUILD/host/serve-pack" "$2" "$LAB"
}
grade() { # grade TREE DIR > its output
    make -s --no-print-directory grade STUDENT="$1" LAB="$LAB" SEED=$seed BUILD="$BUILD" GRADE_DIR="$2"
}
now() { date +%s.%N; }

say "1. quiet queue: make grade, then make submit, of the solution's file (two rounds)"
times=()
for r in 1 2; do
    t0=$(now); grade "$(tree "g$r" "solutions/$folder/$file")" "$OUT/grade-g$r" > "$OUT/grade-g$r.txt" 2>&1; t1=$(now)
    submit 01 "$(tree "s$r" "solutions/$folder/$file")" > "$OUT/submit-s$r.txt" 2>&1; t2=$(now)
    g=$(awk "BEGIN { print $t1 - $t0 }"); s=$(awk "BEGIN { print $t2 - $t1 }")
    echo "   round $r: make grade $g s, make submit $s s"
    times+=("$g $s")
done

say "2. 16 students at once"
pids=()
for i in $(seq -w 1 16); do
    src=labs/$folder/$file
    [ $((10#$i % 2)) -eq 0 ] && src=solutions/$folder/$file
    t=$(tree "student$i" "$src")
    ( submit "$i" "$t" > "$OUT/submit-$i.txt" 2>&1; echo $? > "$OUT/submit-$i.rc" ) &
    pids+=($!)
done
t0=$(now); wait "${pids[@]}"; t1=$(now)
echo "   all 16 reports in $(awk "BEGIN { print $t1 - $t0 }") s"
grade "$(tree ref-skeleton "labs/$folder/$file")" "$OUT/grade-skeleton" > "$OUT/grade-skeleton.txt" 2>&1; echo $? > "$OUT/grade-skeleton.rc"
grade "$(tree ref-solution "solutions/$folder/$file")" "$OUT/grade-solution" > "$OUT/grade-solution.txt" 2>&1; echo $? > "$OUT/grade-solution.rc"

python3 - "$OUT" "$course" "${times[@]}" <<'PY'
import re, sqlite3, sys, statistics
out, course, rounds = sys.argv[1], sys.argv[2], [tuple(map(float, t.split())) for t in sys.argv[3:]]
def norm(text):
    text = text[text.index("\n", text.index("Graded on")) + 1:] if "Graded on" in text else text
    text = re.sub(r"/\S*/work/\d+\.\d+/tree|/\S*/trees/[^/\s]+", "STUDENT", text)
    text = re.sub(r"/\S*/work/\d+\.\d+/out|/\S*/submit-logs/\d+|/\S*/grade-[a-z0-9]+", "GRADE_DIR", text)
    keep = []
    for l in text.splitlines():
        if re.match(r"make(\[\d+\])?: \*\*\* ", l) or l.startswith("Building") or "the grader " in l or re.match(r"  \[\d+/\d+\]", l) or l.startswith("Built in"):
            continue
        l = re.sub(r"\( *[0-9.]+s\)", "(N s)", l)
        m = re.match(r"(.*?\.{3,} (OK|FAIL|SKIP) )", l)
        if m and ("speed" in l or "x the reference" in l):
            l = m.group(1) + "<figures>"
        elif "x the reference" in l or "GB/s" in l or "TFLOP" in l:
            l = re.sub(r"[0-9]+(\.[0-9]+)?", "N", l)
        keep.append(l)
    return keep
ref = {k: (norm(open(f"{out}/grade-{k}.txt").read()), int(open(f"{out}/grade-{k}.rc").read())) for k in ("skeleton", "solution")}
rows, bad = [], 0
for i in range(1, 17):
    kind = "solution" if i % 2 == 0 else "skeleton"
    got = norm(open(f"{out}/submit-{i:02d}.txt").read())
    rc = int(open(f"{out}/submit-{i:02d}.rc").read())
    same = got == ref[kind][0] and rc == ref[kind][1]
    if not same:
        bad += 1
        diff = [(a, b) for a, b in zip(got + [""] * 99, ref[kind][0] + [""] * 99) if a != b][:3]
        print(f"   student{i:02d} ({kind}) differs: exit {rc} vs {ref[kind][1]}; {diff}")
    score = next((l for l in got if l.startswith("Score")), "?")
    rows.append((f"student{i:02d}", kind, rc, score, "same" if same else "DIFFERS"))
db = sqlite3.connect(f"{course}/serve.db")
graded = db.execute("SELECT count(*), count(DISTINCT submission) FROM gradings").fetchone()
done = db.execute("SELECT count(*) FROM submissions WHERE state='done'").fetchone()[0]
gpus = [r[0] for r in db.execute("SELECT DISTINCT gpu FROM submissions")]
gap = statistics.median(s - g for g, s in rounds)
print("\n| student | file | exit | score | vs make grade |\n|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %d | %s | %s |" % r)
print(f"\nGPUs: {', '.join(gpus)}")
print(f"reports identical to make grade's (times, paths, speed figures aside): {16 - bad} of 16")
print(f"submissions done {done}, gradings recorded {graded[0]} for {graded[1]} submissions (each once: {graded[0] == graded[1] == done})")
for k, (g, s) in enumerate(rounds, 1):
    print(f"quiet queue, round {k}: make grade {g:.2f} s, make submit {s:.2f} s, submit - grade {s - g:+.2f} s")
print(f"median submit - grade: {gap:+.2f} s (the mark: at most +2 s)")
ok = bad == 0 and graded[0] == graded[1] == done == len(rounds) + 16 and gap <= 2
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
