#!/usr/bin/env bash
# run.sh - grade every cheating submission and every honest control, and check each verdict.
#
#   tests/cheats/run.sh [CASE ...]        (EMU=1 or no GPU: the cases marked `where: emu`;
#                                         QUICK=1 and no CASE: those tests/cheats/quick.txt names)
#
# Each case is one student file (tests/cheats/*.cu) whose header says which lab it is for,
# where it can show (emu: during correctness checks, on any machine; gpu: speed), and what
# must happen:
#   expect: build=FAIL          the build rejects it
#   expect: correct=FAIL        some correctness check fails (none is left in error)
#   expect: all-correct=OK      every correctness check passes
#   expect: fails-only=REGEX    some correctness check fails, each that does has a name matching
#                               REGEX, and none is left in error
#   expect: speed=OK|FAIL       the speed check's verdict
#   expect: ratio-below=R       the speed check measured a ratio below R (no verdict needed)
#   expect: message=REGEX       some check's message matches
#   expect: build-message=REGEX the build's log (and the terminal) says it
#   expect: build-log-lacks=REGEX   ... and never shows this
#   expect: tree-unchanged      no tracked file, lab binary or grader script changed
#   expect: log-under=BYTES     no log of the lab is larger
#   expect: log-has=REGEX       what the code printed (stdout and stderr, host and device) is in
#                               the logs: some check's log (<lab>.N.log) matches REGEX (Python
#                               re.search, `.` matching newlines too)
#   expect: log-has@N=REGEX     ... check N's log matches it (N counts from 0, as the log's
#                               name does): the output landed in the check that printed it
#   expect: lab-lines-under=N   what make grade printed for the lab, from its `== ` heading to
#                               its score line, is fewer than N lines (one report a fault)
#   expect: log-lacks=REGEX     no check's log (<lab>.N.log, a fault's rerun's <lab>.N.emu.log
#                               too) matches: what every check said, not only the one shown
#   expect: output-has=REGEX    what make grade printed on the terminal matches
#   expect: output-lacks=REGEX  ... and never this (a grader's frame, a path of the build)
#   expect: seed-hidden         the run's seed appears in no log
#   expect: no-forged-lines     what the grader printed (report.txt in a batch) has exactly one
#                               line starting with `Score:` (lines as a terminal or a reader
#                               splits them: CR, VT, FF, NEL, U+2028 ... too), and neither it
#                               nor results.json's messages hold a control character (ESC, CR,
#                               BS, DEL, C0/C1, bidirectional) or a byte that is not UTF-8
#   expect: no-accusation       no check blames the student for work left running or for
#                               slowing the reference (results.json's `blame`)
#   expect: no-error            no check is an ERROR (could not run): whatever the student's
#                               code did is its own FAIL, never the grader's error
#   expect: not-tamper-proof    results.json's tamper_proof is false and the terminal's NOTE
#                               says the run is not tamper-proof
#   expect: report-lacks=REGEX  neither results.json nor the terminal's own lines match (a forged
#                               label); the student's text inside its marked block (lines behind the
#                               `| ` margin) is data and not searched
#   expect: where=REGEX         the lab's WHERE line (results.json's `where`, make grade's hint
#                               under the speed check) matches
#   expect: where-lacks=REGEX   neither that line nor anything the grader printed matches
#                               (the WHERE hint counts the code in a second run: every cheat
#                               gets it, an honest control h* only when it expects one of these)
# `expect@gpu: ...` and `expect@emu: ...` hold only in that mode: one student file graded both
# ways (`where: emu gpu`), where the GPU and the emulator report its fault in their own words.
# `isolation: off` grades the case with GRADER_ISOLATION=off: student code in the harness's own
# process, unsandboxed, as on a machine that cannot isolate (the default is on). Only for
# attacks on what the grader labels, whose code harms nothing beyond its own grading: the
# tree's fingerprint is still compared.
#   expect: emu-could-not-run   under the emulator: every check could not run, each message
#                               naming the emulator's refusal ("cannot be checked on the CPU
#                               emulator", at build time or at run time), no point earned, exit
#                               status 2 (on a GPU: nothing)
#   expect: gpu-correct=FAIL    on a GPU: as correct=FAIL (under the emulator: nothing)
#   expect: gpu-all-correct=OK  on a GPU: as all-correct=OK (under the emulator: nothing); an
#                               honest file the emulator refuses (with emu-could-not-run)
# `fault-rerun: always` grades the case with GRADE_FAULT_RERUN=always: a fault of the student's
# code is run once more on the CPU emulator (what a GPU's fault gets) under the emulator too;
# `fault-rerun: gpu` (grading's default) says an honest control's GPU expectations need that
# rerun, so it is graded with the emulated build the rerun runs (on a GPU either value does).
# `helper: DEST SRC` (one line each) puts tests/cheats/SRC beside the lab file at DEST (a path
# in the lab's folder, kern/op.cuh): a student's own header, which the lab file includes.
# `copy: path` grades that file of the tree instead (honest controls: reference, skeleton);
# `link: path` hands in a symbolic link to that path, `fifo: yes` a named pipe; `fifo-at: path`
# makes a named pipe at that path (from the checkout's top) while the case is graded, for a
# case that names one.
# Prints one line per case and `N passed, M failed`; exits 1 if any case failed. Under the
# emulator the cases are graded CHEATS_LANES at a time (default: one per core; their lines in
# the order they end), on a GPU one at a time. CHEATS_WORK=dir: where the trees and reports go.
set -uo pipefail
cd "$(dirname "$0")/../.."
# One Python for the run, found once: it starts three times a case, and a version manager's
# shim in front of it (pyenv's) costs more than the interpreter itself. Its scripts here use
# the standard library alone: -S skips the site packages' set-up (a third of a start).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] || py=python3
here=tests/cheats
work=${CHEATS_WORK:-${BUILD:-build}/cheats}
mode=gpu
{ [ "${EMU:-}" = 1 ] || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; } && mode=emu
seed=0x5eed5eed12345678
mkdir -p "$work"
pass=0 fail=0
# A file in the machine's /dev/shm for the whole run, standing in for another grading's
# emulated device memory: no student's process may see it (c18).
canary=/dev/shm/grader-cheats-canary.$$
echo "another grading's buffer" >"$canary" 2>/dev/null
trap 'rm -f "$canary"' EXIT

# Everything grading depends on: tracked files, the grader's own programs and scripts of the
# build this mode grades with, and which entries the checkout's top holds (names and types,
# not times: other suites of `make -j test` write under build/ meanwhile). One line per item,
# so that a change can be named.
# The grader's programs are some 100 MB, the tracked files 5 MB, each hashed before and after
# every case: a file's hash is computed again only when its inode, size, modification or change
# time differs from the last time it was hashed ($work/hashes, shared by the lanes). Any write
# to a file sets its change time, which nothing the student's code may do sets back, so the
# content compared is the file's own; a file gone has no line.
fingerprint() {
    # (not the reference's kept counts, reference.counts.*: the harness writes them, in a folder
    # no worker sees, at a lab's first WHERE count; every other file of that folder counts)
    { git ls-files 2>/dev/null
      find "${BUILD:-build}/$mode/.grader" "${BUILD:-build}/$mode"/worker* -type f \
          ! -name 'reference.counts.*' 2>/dev/null | sort; } |
        "$py" -S -c '
import json, os, sys
cache_path = sys.argv[1]
try:
    cache = json.load(open(cache_path))
except (OSError, ValueError):
    cache = {}
changed = False
for path in sys.stdin.read().splitlines():
    try:
        st = os.stat(path)
    except OSError:
        continue
    key = f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"
    if cache.get(path, [None])[0] != key:
        import hashlib  # (only when a file is new or changed: most calls hash nothing)
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError as e:  # (a folder or a pipe where a file was)
            h.update(f"unreadable: {e.strerror}".encode())
        cache[path] = [key, h.hexdigest()]
        changed = True
    print(f"{cache[path][1]}  {path}")
if changed:
    tmp = f"{cache_path}.{os.getpid()}"
    json.dump(cache, open(tmp, "w"))
    os.replace(tmp, cache_path)
' "$work/hashes"
    find . -mindepth 1 -maxdepth 1 -printf 'top: %y %P\n' | sort
}

field() { sed -n "s/^ \* $1: //p; s/^\/\* $1: //p" "$2" | tr -d '\r' | sed 's| *\*/$||'; }

# The cases attack the machine they run on: without the sandbox they would change this tree.
# One honest file first, to see whether this machine isolates.
probe=$work/isolation-probe
rm -rf "$probe" && mkdir -p "$probe/tree" && cp -r labs/01-coalescing "$probe/tree/"
grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 GRADE_DIR="$probe/grade" GRADE_WHERE=0 >"$probe/out.txt" 2>&1
if ! "$py" -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["tamper_proof"] else 1)' \
        "$probe/grade/results.json" 2>/dev/null; then
    echo "cheats: this machine cannot isolate student code ($("$py" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("isolation","?"))' "$probe/grade/results.json" 2>/dev/null || echo "no report: see $probe/out.txt")); no case was run, since each would attack this tree."
    echo "cheats: 0 passed, 1 failed"
    exit 1
fi

cases=("$@")
# QUICK=1 (make test, the quick tier): the cases tests/cheats/quick.txt names, one or more per
# defence; otherwise (make test-all) every case
if [ ${#cases[@]} -eq 0 ] && [ "${QUICK:-}" = 1 ]; then
    cases=($(sed 's/#.*//' $here/quick.txt | awk 'NF { print $1 ".cu" }'))
    for c in "${cases[@]}"; do
        [ -f "$here/$c" ] || { echo "FAIL tests/cheats/quick.txt names ${c%.cu}, which is no case of tests/cheats/"; fail=$((fail + 1)); }
    done
fi
[ ${#cases[@]} -gt 0 ] || cases=($(cd $here && ls [cgh][0-9]*.cu))
# Every case's tree first, and what the cases of a lab share built; on a GPU their own objects
# too, side by side, then the grading one case at a time, so that no two are timed at once (a
# build that fails there fails again, with its message, when the case is graded).
selected=()
for c in "${cases[@]}"; do
    f=$here/${c%.cu}.cu
    name=${c%.cu}
    lab=$(field lab "$f")
    where=$(field where "$f")
    case " $where " in *" $mode "*) ;; *) continue ;; esac
    src=$(field copy "$f")
    if [ -n "$src" ] && [ ! -f "$src" ] && [ -f prebuilt/BUILDINFO ]; then
        echo "skip $name: it grades $src, and this student kit has no solution sources"
        continue
    fi
    dir=$(ls -d labs/[0-9][0-9]-"$lab")
    tree=$work/$name/tree
    rm -rf "$work/$name"
    mkdir -p "$tree"
    cp -r "$dir" "$tree/"
    # one file, as a student hands in: the part the cases share is put into it; or, for
    # `link: TARGET` and `fifo: yes`, a symbolic link or a named pipe in its place
    student_file=$tree/$(basename "$dir")/$lab.cu
    link=$(field link "$f")
    rm -f "$student_file"
    if [ -n "$link" ]; then
        case $link in /*) ln -s "$link" "$student_file" ;; *) ln -s "$PWD/$link" "$student_file" ;; esac
    elif [ "$(field fifo "$f")" = yes ]; then
        mkfifo "$student_file"
    else
        sed -e "/^#include \"cheat_common.cuh\"/{r $here/cheat_common.cuh" -e "d}" "${src:-$f}" >"$student_file"
    fi
    field helper "$f" | while read -r dest from; do
        mkdir -p "$(dirname "$tree/$(basename "$dir")/$dest")"
        cp "$here/$from" "$tree/$(basename "$dir")/$dest"
    done
    selected+=("$c")
    # (its third field: whether its build is expected to fail, which its grading makes anyway)
    printf '%s %s %s\n' "$lab" "$tree" "$(grep -qE '^ \* expect: build=FAIL' "$f" && echo fails)"
done >"$work/builds.txt"
emu_flag=$([ "$mode" = emu ] && echo EMU=1)
for lab in $(cut -d' ' -f1 "$work/builds.txt" | sort -u); do # what the cases of a lab share
    ${MAKE:-make} -s --no-print-directory -j"$(nproc)" runner-"$lab" STUDENT=labs $emu_flag >/dev/null 2>&1
    # on a GPU, the emulated build too (the WHERE count's and a fault rerun's): built here, it
    # is not built, with its lines on the terminal, inside whichever case comes first
    [ "$mode" = emu ] || ${MAKE:-make} -s --no-print-directory -j"$(nproc)" runner-"$lab" STUDENT=labs EMU=1 >/dev/null 2>&1
done
# On a GPU the cases are graded one at a time: their own builds go first, side by side (but
# those expected to fail, which their grading builds again for its message). Under the emulator
# the lanes grade side by side and each case's grading builds its object, once: a build made
# ahead that failed, or that the emulator refused, was made again by the grading (the 28 such
# cases took 81 core-seconds so, 45 without).
[ "$mode" = emu ] ||
    awk '$3 != "fails" { print $1, $2 }' "$work/builds.txt" |
    xargs -P "$(nproc)" -L 1 sh -c '${MAKE:-make} -s --no-print-directory runner-$0 STUDENT=$1 >/dev/null 2>&1; exit 0'
# One case graded and judged: its line printed (one write), and $work/NAME.result.
grade_case() { # CASE
    local c=$1 f name lab tree isolation fifo_at where status before after problems line
    f=$here/${c%.cu}.cu
    name=${c%.cu}
    lab=$(field lab "$f")
    tree=$work/$name/tree
    isolation=$(field isolation "$f")
    fingerprint >"$work/$name.before"
    fifo_at=$(field fifo-at "$f")
    [ -z "$fifo_at" ] || { mkdir -p "$(dirname "$fifo_at")" && rm -f "$fifo_at" && mkfifo "$fifo_at"; }
    # make grade's WHERE hint runs the code a second time, to count it: every cheat gets it (an
    # attack may aim at the count), an honest control only when it expects something of it
    where=1
    # (or, on a GPU, when it names a fault rerun: the rerun runs that build)
    case $name in h*) grep -qE '^ \* expect(@gpu|@emu)?: where(-lacks)?=' "$f" ||
        { [ "$mode" = gpu ] && [ -n "$(field fault-rerun "$f")" ]; } || where=0 ;; esac
    GRADER_ISOLATION=${isolation:-on} grader/driver/grade.sh STUDENT="$tree" LAB="$lab" SEED=$seed \
        GRADE_DIR="$work/$name/grade" GRADE_WHERE=$where GRADE_FAULT_RERUN="$(field fault-rerun "$f")" \
        >"$work/$name/out.txt" 2>&1
    status=$?
    [ -z "$fifo_at" ] || rm -f "$fifo_at"
    fingerprint >"$work/$name.after"
    before=$(sha256sum <"$work/$name.before") after=$(sha256sum <"$work/$name.after")
    [ "$before" = "$after" ] || after="$after changed: $(diff "$work/$name.before" "$work/$name.after" |
        sed -n 's/^[<>] *\([0-9a-f]\{64\} \)\{0,1\}//p' | sort -u | head -3 | tr '\n' ' ')"
    problems=$("$py" -S - "$f" "$work/$name" "$status" "$before" "$after" "$seed" "$mode" <<'EOF'
import json, os, re, sys
case, out, status, before, after, seed, mode = sys.argv[1:]
expects = [m.group(2).replace("*/", "").strip()
           for m in (re.search(r"\bexpect(?:@(\w+))?:(.*)", l)
                     for l in open(case, encoding="utf-8", errors="replace"))
           if m and m.group(1) in (None, mode)]
try:
    res = json.load(open(os.path.join(out, "grade", "results.json")))
except Exception as e:
    print(f"no results.json ({e}); exit {status}")
    sys.exit()
lab = res["labs"][0]

def controls(text):
    """The characters of text that act instead of showing (common/text.h's list)."""
    return sorted({hex(ord(c)) for c in text if ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f
                   or c in "\u061c\u200e\u200f" or 0x2028 <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})

def forged_lines(report, results):
    raw = open(report, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as x:
        return f"the report is not UTF-8 at byte {x.start}"
    scores = [l for l in text.splitlines() if l.lstrip().startswith("Score:")]
    if len(scores) != 1 or not scores[0].startswith("Score:"):
        return f"{len(scores)} lines start with Score: {scores[:4]}"
    if controls(text):
        return f"the report holds controls {controls(text)}"
    try:
        doc = json.loads(open(results, "rb").read())
    except ValueError as x:
        return f"results.json does not parse as UTF-8 JSON: {x}"
    shown = [c[k] for l in doc["labs"] for c in l["checks"] for k in ("message", "detail")]
    bad = sorted({h for t in shown for h in controls(t)})
    return f"results.json's messages hold controls {bad}" if bad else ""
checks = lab["checks"]
correct = [c for c in checks if c["kind"] != "speed"]
speed = [c for c in checks if c["kind"] == "speed"]
logs = [os.path.join(out, "grade", n) for n in os.listdir(os.path.join(out, "grade"))
        if n.endswith(".log")]
bad = []
for e in expects:
    key, _, val = e.partition("=")
    if key == "build":
        ok = (not lab["built"]) == (val == "FAIL")
    elif key == "correct":
        ok = lab["built"] and any(c["verdict"] == "FAIL" for c in correct) and \
             not any(c["verdict"] == "ERROR" for c in correct)
    elif key == "fails-only":
        failed = [c for c in correct if c["verdict"] != "OK"]
        ok = lab["built"] and bool(failed) and all(
            c["verdict"] == "FAIL" and re.search(val, c["name"]) for c in failed)
    elif key == "all-correct":
        ok = lab["built"] and all(c["verdict"] == "OK" for c in correct)
    elif key == "speed":  # without a GPU, speed is never timed: SKIP is the right verdict
        want = "SKIP" if res["mode"] == "emu" else val
        ok = bool(speed) and all(c["verdict"] == want for c in speed)
    elif key == "ratio-below":  # without a GPU there is no ratio: nothing to hold
        ok = res["mode"] == "emu" or (bool(speed) and all(
            c.get("speed", {}).get("ratio_median", 0) < float(val) for c in speed))
    elif key == "message":
        ok = any(re.search(val, c["message"] + " " + c["detail"]) for c in checks)
    elif key in ("build-message", "build-log-lacks"):  # the build's log, as the student sees it
        try:
            text = open(lab.get("build_log") or os.path.join(out, "grade", "x"), errors="replace").read()
        except OSError:
            text = ""
        text += open(os.path.join(out, "out.txt"), errors="replace").read()
        found = re.search(val, text) is not None
        ok = found if key == "build-message" else not found
    elif key == "tree-unchanged":
        ok = before == after
        if not ok:
            e += " (" + after.partition(" changed: ")[2].strip() + ")"
    elif key == "log-has" or key.startswith("log-has@"):
        check = key.partition("@")[2]  # the check's log as results.json names it
        mine = [c.get("log") for c in (checks[int(check):int(check) + 1] if check else checks)]
        ok = any(p and os.path.exists(p) and re.search(val, open(p, errors="replace").read(), re.S)
                 for p in mine)
    elif key == "lab-lines-under":
        shown = open(os.path.join(out, "out.txt"), errors="replace").read().splitlines()
        start = next((i for i, l in enumerate(shown) if l.startswith("== ")), None)
        end = next((i for i, l in enumerate(shown) if start is not None and i > start and
                    l.startswith(f"  {lab['lab']}: ")), None)
        ok = start is not None and end is not None and end - start + 1 < int(val)
        e += f" ({end - start + 1} lines)" if ok is False and start is not None and end else ""
    elif key == "log-lacks":
        found = [os.path.basename(p) for p in logs
                 if re.search(val, open(p, errors="replace").read(), re.S)]
        ok = not found
        e += f" (in {', '.join(sorted(found)[:3])})" if found else ""
    elif key == "output-has":
        ok = re.search(val, open(os.path.join(out, "out.txt"), errors="replace").read()) is not None
    elif key == "output-lacks":
        found = re.search(val, open(os.path.join(out, "out.txt"), errors="replace").read())
        ok = found is None
        e += f" (found {found.group()!r})" if found else ""
    elif key == "log-under":
        ok = all(os.path.getsize(p) < int(val) for p in logs)
    elif key == "seed-hidden":
        ok = not any(seed[2:] in open(p, errors="replace").read() for p in logs)
    elif key == "no-forged-lines":
        why = forged_lines(os.path.join(out, "out.txt"), os.path.join(out, "grade", "results.json"))
        ok = not why
        e += f" ({why})" if why else ""
    elif key == "no-accusation":
        ok = not any(c.get("blame") in ("left-running", "slowed-reference") for c in checks)
    elif key == "not-tamper-proof":
        ok = res.get("tamper_proof") is False and re.search(
            r"^NOTE: not tamper-proof", open(os.path.join(out, "out.txt"), errors="replace").read(), re.M)
    elif key == "report-lacks":
        terminal = open(os.path.join(out, "out.txt"), errors="replace").read().splitlines()
        text = "\n".join(l for l in terminal if not re.match(r"\s+\| ", l)) + \
            open(os.path.join(out, "grade", "results.json"), errors="replace").read()
        found = re.search(val, text)
        ok = not found
        e += f" (found {found.group()!r})" if found else ""
    elif key == "emu-could-not-run":
        ok = res["mode"] != "emu" or (
            (not lab["built"] or bool(lab.get("refused"))) and bool(correct) and
            lab["score"] == 0 and int(status) == 2 and
            all(c["verdict"] in ("ERROR", "SKIP") and c["earned"] == 0 for c in checks) and
            all(c["verdict"] == "ERROR" and "cannot be checked on the CPU emulator" in c["message"]
                for c in correct))
    elif key == "gpu-correct":
        ok = res["mode"] == "emu" or (lab["built"] and any(c["verdict"] == "FAIL" for c in correct)
                                      and not any(c["verdict"] == "ERROR" for c in correct))
    elif key == "gpu-all-correct":
        ok = res["mode"] == "emu" or (lab["built"] and all(c["verdict"] == "OK" for c in correct))
    elif key == "no-error":
        ok = lab["built"] and not any(c["verdict"] == "ERROR" for c in checks)
    elif key in ("where", "where-lacks"):  # make grade's hint, and (lacks) all that was printed
        wheres = " | ".join(c.get("where", "") for c in checks)
        printed = open(os.path.join(out, "out.txt"), errors="replace").read()
        if key == "where":
            ok = re.search(val, wheres) is not None
        else:
            ok = re.search(val, wheres) is None and re.search(val, printed) is None
        e += f" (WHERE: {wheres[:200]!r})"
    else:
        ok = False
    if not ok:
        got = "; ".join(f'{c["name"]}: {c["verdict"]} {c["message"]}' for c in checks
                        if c["verdict"] != "OK")[:300]
        bad.append(f"expected {e}, got built={lab['built']} {got}")
print(" | ".join(bad))
EOF
) || problems="the check of its expectations failed: ${problems:-no output}"
    if [ -z "$problems" ]; then
        line="ok   $name"
    else
        line="FAIL $name: $problems (log: $work/$name/out.txt)"
    fi
    printf '%s\n' "$line" >"$work/$name.result"
    printf '%s\n' "$line"
}

# Under the emulator nothing is timed: the cases are graded side by side, CHEATS_LANES at a
# time (default: one per core), each in a grading of its own (its tree, report and WHERE
# folder); a case graded outside the sandbox (isolation: off) is graded alone, after them. On
# a GPU one case at a time, so that no two are timed at once.
lanes=1
[ "$mode" = emu ] && lanes=${CHEATS_LANES:-$(nproc)}
alone=() running=0
for c in "${selected[@]}"; do
    rm -f "$work/${c%.cu}.result"
    if [ "$lanes" -gt 1 ] && [ -z "$(field isolation "$here/${c%.cu}.cu")" ]; then
        while [ "$running" -ge "$lanes" ]; do wait -n; running=$((running - 1)); done
        grade_case "$c" &
        running=$((running + 1))
    else
        alone+=("$c")
    fi
done
wait
for c in "${alone[@]}"; do grade_case "$c"; done
for c in "${selected[@]}"; do
    case $(head -c 4 "$work/${c%.cu}.result" 2>/dev/null) in
        "ok  ") pass=$((pass + 1)) ;;
        *) fail=$((fail + 1))
           [ -f "$work/${c%.cu}.result" ] || echo "FAIL ${c%.cu}: its grading ended without a verdict" ;;
    esac
done
echo "cheats ($mode): $pass passed, $fail failed"
[ $fail -eq 0 ]
