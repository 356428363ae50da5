#!/usr/bin/env python3
"""tests/batch/test_batch.py - batch grading end to end, under the CPU emulator (lab 01).

    tests/batch/test_batch.py BUILD_DIR

1. A batch of hostile folder names (shell and make syntax, quotes, commas, a newline, a
   leading dash, non-ASCII and non-UTF-8 bytes, a dot-folder, a spreadsheet formula), a build
   failure, symbolic links to /etc/passwd and to a solution, a stray file: every entry is in
   the gradebook exactly once, unchanged (or refused with its reason), nothing ran.
   One student forges the grader's lines: a folder name with a formula, quotes, a comma,
   CR LF, ESC and a byte that is not UTF-8, and a submission whose worker sends messages
   (tests/cheats/c29-forge-grader-lines.cu) that break lines every way and say
   "Score: 17/17": in gradebook.csv, its report.txt, the batch's output and every export it
   all shows as escapes, one record per line, one `Score:` line per report, the student's
   text in report.txt only under the log's margin or after a check's verdict; its name also
   holds a tag, an entity, `]]>`, a backtick and `|`: the JUnit XML and the HTML page's SVG
   parse as XML, the page holds only its own tags (html.parser), the Markdown tables keep
   their columns.
   Work not submitted (no lab file, the untouched skeleton, the file at the top of the
   submission instead of in its lab folder) is named "no submission for lab 01" with the
   reason in the CSV's `missing` column, JSON Lines, report.txt and every export; the reports
   and logs a student is given name no folder of the batch's.
2. The gradebook read back with Python's csv module (RFC 4180, CRLF), JSON Lines, JUnit XML
   (ElementTree), Gradescope results.json against the specification's fields.
3. Two batches on one output folder: the second says plainly that the first holds it.
4. kill -9 in the middle of a batch, then the same command: it resumes, leaves no grading
   process behind, and writes a gradebook byte-identical to an uninterrupted run's.
5. The HTML report rendered by headless Chromium to a PNG (installed with apt-get when
   missing; skipped, with the reason, where it cannot be).
6. The same students as a Slurm job array (tests/batch/slurm.sh): the same gradebook.
7. GPUS=0,1 with a stand-in for the driver that records its environment (no GPU needed): every
   grade gets CUDA_VISIBLE_DEVICES 0 or 1 and the batch's host-link lock (lab 05's speed
   checks, one GPU at a time), both GPUs grade side by side, no grade starts on a GPU while
   another runs there, and each student's line names the GPU its grade had.
Input errors (LAB, SEED, GRADER_SET, OUT) give one clear line each.
"""
import csv
import glob
import html.parser
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.getcwd()
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
BATCH = os.path.join(ROOT, BUILD, "host", "grade-batch")
SEED = "0x5eed"
LAB = "01"
PASSED, FAILED, SKIPPED = [], [], []


def check(ok, what, detail=""):
    (PASSED if ok else FAILED).append(what)
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else ": " + str(detail)[:2000]))
    sys.stdout.flush()


def skip(what, why):
    SKIPPED.append(what)
    print("SKIP %s: %s" % (what, why))


def batch(cmd, subs, out, *extra, wait=True, **kw):
    args = [BATCH, cmd, "SUBMISSIONS=" + subs, "OUT=" + out, "LAB=" + LAB, "SEED=" + SEED, "EMU=1", *extra]
    env = dict(os.environ)
    env.update(kw.pop("env", {}))
    if not wait:
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, **kw)


SOLUTION = open(os.path.join(ROOT, "solutions/01-coalescing/coalescing.cu"), "rb").read()
# The cheat case whose worker forges the grader's lines, with the header it includes inlined
# (a batch grades the lab file alone).
FORGER = open(os.path.join(ROOT, "tests/cheats/c29-forge-grader-lines.cu"), "rb").read().replace(
    b'#include "cheat_common.cuh"', open(os.path.join(ROOT, "tests/cheats/cheat_common.cuh"), "rb").read())
FORGER_NAME = b'=SUM(1+1)*cmd|" -c calc"!A0,x\x1b[31m\r\nScore: 17\t\xff<b>&amp;]]>`|'  # no slash: a folder name

# name (bytes) -> what the folder holds: "solution", "skeleton" (nothing), "broken",
# "empty-lab" (the lab folder without the file), or a special case.
STUDENTS = {
    b"$(shell touch X)": "skeleton",
    b"a|b": "solution",
    b'x"y': "empty-lab",
    b"Smith, John": "solution",
    b"o'brien": "skeleton",
    b"with  spaces ": "skeleton",
    b"new\nline": "solution",
    b"-rf": "skeleton",
    "Zoë Ångström 山田".encode(): "solution",
    b"bad\xffutf8": "skeleton",
    b".hidden": "skeleton",
    b'=HYPERLINK("x","y")': "skeleton",
    b"`touch Y`": "skeleton",
    b"build-fails": "broken",
    b"link-passwd": "link:/etc/passwd",
    b"link-solution": "link:" + os.path.join(ROOT, "solutions/01-coalescing/coalescing.cu"),
    b"toplink": "toplink",
    b"notes.txt": "file",
    FORGER_NAME: "forger",
    b"untouched": "untouched",
    b"at-top": "at-top",
    b"checkout": "checkout",
    b"misplaced": "misplaced",
    b"other-case": "other-case",
    b"renamed-upload": "renamed-upload",
    b"two-files": "two-files",
    b"helper": "helper",
    b"two-helpers": "two-helpers",
    "zero\u200bwidth".encode(): "solution",
    b"zerowidth": "solution",
}
SUBSET = [b"a|b", b"Smith, John", b"new\nline", b"-rf", "Zoë Ångström 山田".encode(), b"build-fails"]


def make_submissions(base, names):
    os.makedirs(base, exist_ok=True)
    for name in names:
        kind = STUDENTS[name]
        path = os.path.join(os.fsencode(base), name)
        lab = os.path.join(path, b"01-coalescing")
        if kind == "file":
            open(path, "wb").write(b"not a submission\n")
        elif kind == "toplink":
            os.symlink(os.path.join(os.fsencode(base), b"a|b"), path)
        else:
            os.makedirs(path)
            if kind == "solution":
                os.makedirs(lab)
                open(os.path.join(lab, b"coalescing.cu"), "wb").write(SOLUTION)
            elif kind == "forger":
                os.makedirs(lab)
                open(os.path.join(lab, b"coalescing.cu"), "wb").write(FORGER)
            elif kind == "broken":
                os.makedirs(lab)
                open(os.path.join(lab, b"coalescing.cu"), "wb").write(b"this is not CUDA C\n")
            elif kind == "empty-lab":
                os.makedirs(lab)
            elif kind == "untouched":  # the skeleton handed in as it came
                os.makedirs(lab)
                shutil.copy(os.path.join(ROOT, "labs/01-coalescing/coalescing.cu"), os.path.join(lab, b"coalescing.cu"))
            elif kind == "at-top":  # the solution, outside its lab folder
                open(os.path.join(path, b"coalescing.cu"), "wb").write(SOLUTION)
            elif kind == "checkout":  # a whole checkout handed in: labs/ inside a folder
                for where, text in ((b"cuda-workbook/labs", SOLUTION), (b"cuda-workbook/solutions", b"other\n")):
                    os.makedirs(os.path.join(path, where, b"01-coalescing"))
                    open(os.path.join(path, where, b"01-coalescing/coalescing.cu"), "wb").write(text)
                # ... after make test: its build/ (beside labs/) holds the workbook's own tests'
                # links, pipes and lab files, more files than a submission may hold, and git's
                # store beside it: neither is looked into
                top = os.path.join(path, b"cuda-workbook")
                for case in (b"build/cheats/c26/tree/01-coalescing", b"build/cheats/c27/tree/01-coalescing",
                             b"build/tests/kit/labs/01-coalescing", b"build/many", b".git/objects/ab"):
                    os.makedirs(os.path.join(top, case))
                os.symlink(b"/etc/passwd", os.path.join(top, b"build/cheats/c26/tree/01-coalescing/coalescing.cu"))
                os.mkfifo(os.path.join(top, b"build/cheats/c27/tree/01-coalescing/coalescing.cu"))
                shutil.copy(os.path.join(ROOT, "labs/01-coalescing/coalescing.cu"),
                            os.path.join(top, b"build/tests/kit/labs/01-coalescing/coalescing.cu"))
                for i in range(10001):
                    open(os.path.join(top, b"build/many/%d" % i), "wb").close()
                os.symlink(b"../HEAD", os.path.join(top, b".git/objects/ab/link"))
            elif kind == "misplaced":  # the solution in a folder of the student's own naming
                os.makedirs(os.path.join(path, b"lab01"))
                open(os.path.join(path, b"lab01/coalescing.cu"), "wb").write(SOLUTION)
            elif kind == "other-case":  # named as a system that ignores case let it be
                os.makedirs(os.path.join(path, b"01-Coalescing"))
                open(os.path.join(path, b"01-Coalescing/Coalescing.cu"), "wb").write(SOLUTION)
            elif kind == "renamed-upload":  # a suffix added after .cu on the way in
                os.makedirs(lab)
                open(os.path.join(lab, b"coalescing.cu.txt"), "wb").write(SOLUTION)
            elif kind == "two-files":  # two different files for one lab: never one picked
                for where in (b"a/labs/01-coalescing", b"b/labs/01-coalescing"):
                    os.makedirs(os.path.join(path, where))
                open(os.path.join(path, b"a/labs/01-coalescing/coalescing.cu"), "wb").write(SOLUTION)
                shutil.copy(os.path.join(ROOT, "labs/01-coalescing/coalescing.cu"),
                            os.path.join(path, b"b/labs/01-coalescing/coalescing.cu"))
            elif kind == "two-helpers":  # one lab file in two places, each with its own helper
                for where, body in ((b"a/labs/01-coalescing", b"#define TWO_HELPERS 1\n"),
                                    (b"b/labs/01-coalescing", b"#define TWO_HELPERS 2\n")):
                    os.makedirs(os.path.join(path, where))
                    open(os.path.join(path, where, b"coalescing.cu"), "wb").write(b'#include "params.h"\n' + SOLUTION)
                    open(os.path.join(path, where, b"params.h"), "wb").write(body)
            elif kind == "helper":  # the solution's kernel in a header of the student's own
                os.makedirs(os.path.join(lab, b"detail"))
                text = SOLUTION.decode()
                cut = text.index("__global__")
                open(os.path.join(lab, b"detail/kernel.cuh"), "wb").write(
                    b'#include "coalescing.h"\n' + text[cut:text.index("\n}\n", cut) + 3].encode())
                open(os.path.join(lab, b"coalescing.cu"), "wb").write(
                    (text[:cut] + '#include "detail/kernel.cuh"\n' + text[text.index("\n}\n", cut) + 3:]).encode())
            elif kind.startswith("link:"):
                os.makedirs(lab)
                os.symlink(kind[5:], os.path.join(lab, b"coalescing.cu"))


def read_csv(path):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8", "surrogateescape")
    return raw, list(csv.reader(io.StringIO(text, newline="")))


def csv_name(cell):
    """The folder name a CSV cell stands for: a neutralised formula loses its quote, and the
    escapes that show controls and bytes that are not UTF-8 (common/text.h) are read back."""
    if cell[:2] in ("'=", "'+", "'-", "'@") or cell[:3] in ("'\\t", "'\\r"):
        cell = cell[1:]
    out = b""
    for m in re.finditer(r"\\[nrt]|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|.", cell, re.S):
        t = m.group()
        out += ({"\\n": b"\n", "\\r": b"\r", "\\t": b"\t"}.get(t) or
                (bytes([int(t[2:], 16)]) if t.startswith("\\x") else
                 chr(int(t[2:], 16)).encode() if t.startswith("\\u") else
                 t.encode("utf-8", "surrogateescape")))
    return out


def shown_as_text(data):
    """Why bytes would not read as plain text on a terminal (controls other than line ends,
    not UTF-8), or ""."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "not UTF-8 at byte %d" % e.start
    bad = sorted({hex(ord(c)) for c in text.replace("\r\n", "\n") if ord(c) < 0x20 and c != "\n" or
                  0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029\u202e"})
    return "controls %s" % bad if bad else ""


def all_bytes_under(path):
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                yield p, open(p, "rb").read()


def check_markup(sdir, name):
    """One student's exports read by Python's own parsers: the XML (JUnit, the HTML page's SVG
    chart) is well-formed, the HTML holds only the page's own tags, the Markdown tables keep
    their columns, the JSON parses; the student's name and messages are text in each."""
    html_src = open(os.path.join(sdir, "report.html"), encoding="utf-8").read()
    tags = []

    class Tags(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)
    Tags().feed(html_src)
    page = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "b", "code", "br",
            "small", "table", "tr", "th", "td", "svg", "text", "line", "rect"}
    check(set(tags) <= page and tags.count("title") == 1 and tags.count("svg") <= 1 and tags.count("b") == 1,
          "report.html of a forging student: only the page's own tags", sorted(set(tags) - page))
    svg = re.search(r"<svg.*?</svg>", html_src, re.S)
    try:
        if svg:
            ET.fromstring(svg.group())
        ok, why = True, ""
    except ET.ParseError as e:
        ok, why = False, e
    check(ok, "report.html's SVG chart is well-formed XML", why)
    try:
        suites = ET.parse(os.path.join(sdir, "junit.xml")).getroot()
        shown = " ".join(s.get("name", "") for s in suites.iter("testsuite"))
        ok, why = "Score: 17" in shown and "\\r\\n" in shown, shown[:200]
    except ET.ParseError as e:
        ok, why = False, e
    check(ok, "junit.xml of a forging student parses, its name shown as escapes", why)
    md = open(os.path.join(sdir, "report.md"), encoding="utf-8").read().split("\n")
    rows = [l for l in md if l.startswith("|")]
    widths = {len(re.findall(r"(?<!\\)\|", l)) for l in rows}
    check(rows and widths == {5} and not any(re.search(r"(?<!\\)`", l) for l in rows),
          "report.md of a forging student: every table row keeps its columns, no code span opens", widths)
    gs = json.load(open(os.path.join(sdir, "gradescope.json"), encoding="utf-8"))
    texts = [gs["output"]] + [t["output"] for t in gs["tests"]] + [t["name"] for t in gs["tests"]]
    check(not any(l.startswith("Score:") for t in texts for l in t.split("\n")),
          "gradescope.json of a forging student: no line of its texts is a Score line")


# ------------------------------------------------------------------------------------------
def test_input_errors(tmp):
    subs = os.path.join(tmp, "empty-subs")
    os.makedirs(subs)
    out = os.path.join(tmp, "out-errors")
    cases = [
        (["LAB=,"], {}, "empty item"),
        (["LAB=01,,06"], {}, "empty item"),
        (["LAB=nosuchlab"], {}, "no lab called `nosuchlab`"),
        (["SEED=-1"], {}, "SEED=-1 is not a number"),
        (["SEED=12abc"], {}, "SEED=12abc is not a number"),
        ([], {"GRADER_SET": "coalescing.threshold=nan"}, "nan"),
        ([], {"GRADER_SET": "nosuch.threshold=0.5"}, "nosuch"),
        ([], {"GRADER_SET": "coalescing.timeout=0"}, "timeout"),
        (["OUT=" + tmp + "/a b"], {}, "has a ` `"),
        (["GPUS=0;rm"], {}, "not a GPU index"),
    ]
    for extra, env, want in cases:
        args = [BATCH, "prepare", "SUBMISSIONS=" + subs, "OUT=" + out]
        lab_given = any(a.startswith("LAB=") for a in extra)
        args += ([] if lab_given else ["LAB=01"]) + [a for a in extra]
        e = dict(os.environ)
        e.update(env)
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=e)
        msg = r.stdout.decode(errors="replace").strip()
        check(r.returncode == 2 and want in msg and msg.count("\n") == 0,
              "input error %s %s: one line naming it" % (" ".join(extra), env or ""), msg)


    if not shutil.which("nvidia-smi"):
        r = subprocess.run([BATCH, "prepare", "SUBMISSIONS=" + subs, "OUT=" + out, "GPUS=all"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        msg = r.stdout.decode(errors="replace")
        check(r.returncode == 0 and "lists no GPU here; one worker" in msg,
              "GPUS=all with no GPU: one worker on the CPU emulator", msg)


# A stand-in for the grade-driver: what the batch runs for each student's grade, with the command
# line FAKE_MAKE's make grade wrote (make's own arguments: GRADE_DIR=, STUDENT=, GRADER_HIDE=). It
# records the CUDA_VISIBLE_DEVICES it was given, says whether a grade was already running on that
# GPU (shared) or on another (beside), and holds its GPU until it has seen a grade on another GPU
# (at most 20 s; the last student's grade, once every grade has started, not at all), so that
# two GPUs' timers must overlap for the test to pass.
FAKE_GRADE = r"""#!/usr/bin/env bash
set -u
gpu=${CUDA_VISIBLE_DEVICES-unset}
grade_dir= tree=
for a in "$@"; do case $a in GRADE_DIR=*) grade_dir=${a#GRADE_DIR=} ;; STUDENT=*) tree=${a#STUDENT=} ;; esac; done
# which student this is: the last line of its file says (// student N)
who=$(tail -n 1 "$tree"/01-coalescing/coalescing.cu 2>/dev/null | sed -n 's|^// student \([0-9]*\)$|\1|p')
log=$FAKE_GRADE_LOG
mkdir -p "$log/running" "$log/started"
shared=$(ls "$log/running" | grep -c "^$gpu\." )
touch "$log/running/$gpu.$$" "$log/started/$$"
beside=0
for i in $(seq 200); do
    # counted before the look: a grade marks itself running before started
    started=$(ls "$log/started" | wc -l)
    ls "$log/running" | grep -qv "^$gpu\." && { beside=1; break; }
    # the last grade, alone once every other has ended, need not wait
    [ "$started" -ge "$FAKE_GRADE_STUDENTS" ] && break
    sleep 0.1
done
sleep 1
rm -f "$log/running/$gpu.$$"
hide=
for a in "$@"; do case $a in GRADER_HIDE=*) hide=${a#GRADER_HIDE=} ;; esac; done
echo "gpu=$gpu shared=$shared beside=$beside who=${who:-unknown} link=${GRADE_HOST_LINK_LOCK:-unset} alone=${GRADER_ALONE_CACHE:-unset} hide=${hide%% *}" >>"$log/grades.txt"
mkdir -p "$grade_dir"
printf '{"exit_status": 0, "tamper_proof": true, "labs": []}\n' >"$grade_dir/results.json"
echo "Score: 0/0"
"""

# A stand-in for make: nothing to build; make grade given GRADE_ARGV=FILE (the batch's keeper)
# writes there, NUL-ended, the driver's command line: FAKE_GRADE with make's own arguments.
FAKE_MAKE = r"""#!/usr/bin/env bash
for a in "$@"; do case $a in GRADE_ARGV=*) printf '%s\0' "$FAKE_DRIVER" "$@" >"${a#GRADE_ARGV=}" ;; esac; done
exit 0
"""


def test_gpu_workers(tmp):
    """GPUS=0,1: one timer per GPU, each grade with its own GPU's CUDA_VISIBLE_DEVICES, the two
    GPUs' grades side by side, never two grades on one GPU at once. No GPU needed: the grades
    are FAKE_GRADE's (the driver FAKE_MAKE's make grade names: nothing built), in a folder that stands for the
    workbook's top (the batch takes the skeletons there, with the script that checks them, to
    tell work not submitted)."""
    top = os.path.join(tmp, "gpus-top")
    shutil.copytree(os.path.join(ROOT, "labs"), os.path.join(top, "labs"))
    os.makedirs(os.path.join(top, "grader", "batch"))
    shutil.copy(os.path.join(ROOT, "grader/batch/pristine_skeletons.sh"), os.path.join(top, "grader", "batch"))
    for name, text in (("fake-driver", FAKE_GRADE), ("fake-make", FAKE_MAKE)):
        with open(os.path.join(top, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(top, name), 0o755)
    subs = os.path.join(tmp, "gpus-subs")
    for i in range(6):
        d = os.path.join(subs, "student%d" % i, "01-coalescing")
        os.makedirs(d)
        with open(os.path.join(d, "coalescing.cu"), "wb") as f:
            f.write(SOLUTION + b"// student %d\n" % i)
    log = os.path.join(tmp, "gpus-log")
    os.makedirs(log)
    env = dict(os.environ, FAKE_GRADE_LOG=log, FAKE_GRADE_STUDENTS="6",
               MAKE=os.path.join(top, "fake-make"), FAKE_DRIVER=os.path.join(top, "fake-driver"))
    r = subprocess.run([BATCH, "grade", "SUBMISSIONS=" + subs, "OUT=" + os.path.join(tmp, "gpus-out"),
                        "LAB=" + LAB, "SEED=" + SEED, "GPUS=0,1"], cwd=top, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = r.stdout.decode(errors="replace")
    try:
        grades = [dict(kv.split("=") for kv in l.split()) for l in open(os.path.join(log, "grades.txt"))]
    except OSError:
        grades = []
    gpus = sorted({g["gpu"] for g in grades})
    check(len(grades) == 6 and "2 workers" in out,
          "GPUS=0,1: six students graded by two workers", out[-1500:])
    check(gpus == ["0", "1"] and all(g["gpu"] in ("0", "1") for g in grades),
          "GPUS=0,1: each grade has CUDA_VISIBLE_DEVICES 0 or 1, and both GPUs grade", grades)
    check(grades and all(g["shared"] == "0" for g in grades),
          "GPUS=0,1: no grade starts on a GPU while another grade runs there", grades)
    check(grades and all(g["beside"] == "1" for g in grades[:-1]),
          "GPUS=0,1: the two GPUs grade side by side (every grade but the last saw the other GPU's)",
          grades)
    lock = os.path.join(os.path.realpath(os.path.join(tmp, "gpus-out")), ".host-link.lock")
    check(grades and all(os.path.realpath(os.path.dirname(g["link"])) == os.path.dirname(lock) and
                         os.path.basename(g["link"]) == ".host-link.lock" for g in grades),
          "GPUS=0,1: every grade is handed the batch's host-link lock (GRADE_HOST_LINK_LOCK in its "
          "output folder), which lab 05's speed checks take one GPU at a time", (lock, grades))
    alone = os.path.join(os.path.realpath(os.path.join(tmp, "gpus-out")), ".alone")
    check(grades and all(os.path.realpath(g["alone"]) == alone and
                         os.path.realpath(g["hide"]) == os.path.dirname(alone) for g in grades),
          "GPUS=0,1: every grade is handed the folder where the batch keeps the reference alone "
          "per GPU (GRADER_ALONE_CACHE, in its output folder, which GRADER_HIDE keeps from every "
          "student's code)", (alone, grades))
    said = dict(re.findall(r"^\[\d+/6\] student(\d+): .* on GPU (\S+)$", out, re.M))
    check(len(said) == 6 and said == {g["who"]: g["gpu"] for g in grades},
          "GPUS=0,1: each student's line names the GPU that graded it (on GPU 0 or 1)",
          (said, grades, out[-1500:]))


def test_hostile(tmp):
    subs = os.path.join(tmp, "subs")
    make_submissions(subs, list(STUDENTS))
    out = os.path.join(tmp, "out-hostile")
    t0 = time.time()
    r = batch("grade", subs, out, cwd=ROOT)
    log = r.stdout.decode(errors="replace")
    print("  (hostile batch: %d entries in %.0f s)" % (len(STUDENTS), time.time() - t0))
    check(not shown_as_text(r.stdout) and "\\x1b[31m\\r\\nScore: 17\\t\\xff<b>&amp;]]>`|: no score, speed not "
          "graded (no GPU); correctness 8 of 10 checks" in log,
          "the batch's output shows names as escapes", shown_as_text(r.stdout))
    check(r.returncode == 0, "hostile-names batch finished", log[-3000:])
    # make builds each student's objects under BUILD/emu/<its tree's path, / as _>; the batch
    # removes them where the driver's results.json says they are.
    emu_dir = os.path.join(ROOT, BUILD, "emu")
    tag = os.path.realpath(out).replace("/", "_") + "_work_"
    left = [d for d in os.listdir(emu_dir) if d.startswith(tag)]
    said = set()
    for sid in os.listdir(os.path.join(out, "students")):
        res = os.path.join(out, "students", sid, "results.json")
        if os.path.exists(res):
            said.add(json.load(open(res)).get("student_objects", "").startswith(os.path.join(BUILD, "emu", tag)))
    check(said == {True} and not left, "each student's built objects are removed once graded",
          (said, left))
    for where in (ROOT, subs, tmp, os.path.join(out)):
        check(not os.path.exists(os.path.join(where, "X")) and not os.path.exists(os.path.join(where, "Y")),
              "no command in a name ran (no X or Y in %s)" % where)

    raw, rows = read_csv(os.path.join(out, "gradebook.csv"))
    print("  gradebook.csv, as Python's csv module reads it (name, 01, total, max, exit, state, reason):")
    for r in rows[1:]:
        print("    %r" % ([r[0], r[1]] + r[10:15] + [r[15][:60]],))
    header = rows[0]
    labs = sorted(d for d in os.listdir(os.path.join(ROOT, "grader", "labs")) if d[:2].isdigit())
    check(header == ["student"] + labs + ["total", "max", "correctness", "speed", "exit_status", "state", "isolation",
                                         "missing", "reason"],
          "CSV header: one fixed column per lab in workbook order", header)
    graded = [r for r in rows[1:] if len(r) == len(header) and r[header.index("state")] == "graded"]
    check(graded and all(r[header.index("isolation")] == "tamper-proof" for r in graded),
          "CSV: every graded row says it is tamper-proof (student code isolated)",
          [r[header.index("isolation")] for r in graded])
    check(all(len(r) == len(header) for r in rows), "CSV: every row as wide as the header",
          [len(r) for r in rows])
    check(raw.count(b"\r\n") == len(rows) and raw.endswith(b"\r\n") and raw.count(b"\n") == len(rows),
          "CSV: every record is one line ending with CRLF (newlines in a cell show as \\n)")
    check(not shown_as_text(raw), "CSV: no control character, valid UTF-8", shown_as_text(raw))
    names = [csv_name(r[0]) for r in rows[1:]]
    check(sorted(names) == sorted(STUDENTS), "every entry of SUBMISSIONS is in the gradebook once",
          set(STUDENTS) ^ set(names))
    by = {csv_name(r[0]): dict(zip(header, r)) for r in rows[1:]}
    check(rows[1:] and b"'=HYPERLINK" in raw and b"\"'=HYPERLINK" in raw,
          "CSV: a name starting with = is neutralised with a quote")
    check(by[b"-rf"]["student"] == "'-rf", "CSV: a leading dash is neutralised", by[b"-rf"]["student"])
    check(b"zero\\u200bwidth," in raw and b"\xe2\x80\x8b" not in raw,
          "CSV: a zero-width space in a name is shown as an escape (two students never look like one)")
    for name, kind in STUDENTS.items():
        row = by.get(name, {})
        if kind in ("solution", "skeleton", "empty-lab", "untouched", "at-top", "checkout", "misplaced", "other-case",
                    "renamed-upload", "helper"):
            # no GPU: no points and no total (speed is not graded), the correctness checks counted;
            # a lab without work of the student's is a point lost for sure (exit 1)
            work = kind in ("solution", "checkout", "helper")
            ok = (row.get("state") == "graded" and row.get("01-coalescing") == "" and row.get("total") == ""
                  and row.get("max") == "" and row.get("correctness") == "10/10 checks"
                  and row.get("speed") == "not graded (no GPU)" and row.get("exit_status") == ("2" if work else "1")
                  and row.get("02-banks") == "")
            check(ok, "graded correctly (no GPU: no total, correctness 10 of 10, speed not graded): %r" % name, row)
            # Work not submitted is named as such in every export, with why; a solution is not.
            why = {"skeleton": "not handed in (no submission: no 01-coalescing/coalescing.cu in the submission",
                   "empty-lab": "not handed in (no submission: no 01-coalescing/coalescing.cu in the submission",
                   "untouched": "not started (01-coalescing/coalescing.cu is the untouched skeleton",
                   "at-top": "misplaced (found coalescing.cu: it belongs in 01-coalescing/coalescing.cu; move it there",
                   "misplaced": "misplaced (found lab01/coalescing.cu: it belongs in 01-coalescing/coalescing.cu; move it there",
                   "other-case": "misplaced (found 01-Coalescing/Coalescing.cu: it belongs in 01-coalescing/coalescing.cu; move it there",
                   "renamed-upload": "misplaced (found 01-coalescing/coalescing.cu.txt: it belongs in 01-coalescing/coalescing.cu; move it there"}.get(kind)
            word = {"skeleton": "no-file", "empty-lab": "no-file", "untouched": "not-started", "at-top": "misplaced",
                    "misplaced": "misplaced", "other-case": "misplaced", "renamed-upload": "misplaced"}.get(kind)
            sid = [o for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl"), "rb"))
                   if (bytes.fromhex(o["student_hex"]) if "student_hex" in o else o["student"].encode()) == name][0]
            texts = {f: open(os.path.join(out, "students", sid["id"], f), "rb").read().decode("utf-8", "replace")
                     for f in ("report.txt", "gradescope.json", "junit.xml", "report.html", "report.md")}
            if why:
                said = "lab 01 " + why
                unsaid = [f for f, t in texts.items() if said not in t.replace("\\", "")]
                check(row.get("missing") == "01:" + word and said in row.get("reason", "") and sid.get("missing") == ["01"]
                      and sid.get("missing_why") == {"01": word} and not unsaid, "work not submitted (%s) named in the CSV, JSON Lines and every export: %r" % (kind, name),
                      (row.get("missing"), row.get("reason", "")[:200], sid.get("missing"), unsaid))
            else:
                check(row.get("missing") == "" and sid.get("missing") == [] and
                      not any(w in t for t in texts.values() for w in ("not handed in", "not started", "misplaced")),
                      "a submitted file is not named as missing: %r" % name, row.get("missing"))
        elif kind == "two-files":
            check(row.get("state") == "refused" and "a/labs/01-coalescing/coalescing.cu" in row.get("reason", "")
                  and "b/labs/01-coalescing/coalescing.cu" in row.get("reason", ""),
                  "two different files for one lab: refused, both named", row)
        elif kind == "two-helpers":
            check(row.get("state") == "refused" and "a/labs/01-coalescing/coalescing.cu" in row.get("reason", "")
                  and "b/labs/01-coalescing/coalescing.cu" in row.get("reason", "")
                  and "different helper files" in row.get("reason", ""),
                  "one lab file in two places with different helpers: refused, both named, never one picked", row)
        elif kind == "forger":
            student = raw.split(b"\r\n")[[csv_name(r[0]) for r in rows].index(name)]
            check(row.get("state") == "graded" and row.get("total") == "" and row.get("correctness") == "8/10 checks"
                  and row.get("exit_status") == "1"
                  and student.startswith(b'"\'=SUM(1+1)*cmd|"" -c calc""!A0,x\\x1b[31m\\r\\nScore: 17\\t\\xff<b>&amp;]]>`|",')
                  and "\\nScore: 17/17\\r" in row.get("reason", ""),
                  "CSV: a name and messages with a formula, quotes, CR LF and ESC are neutralised", student)
            sid = [o for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl"), "rb"))
                   if o.get("student_hex") == name.hex()][0]["id"]
            report = open(os.path.join(out, "students", sid, "report.txt"), "rb").read()
            scores = [l for l in report.decode("utf-8", "replace").splitlines() if l.lstrip().startswith("Score:")]
            check(len(scores) == 1 and scores[0].startswith("Score: speed not graded (no GPU), so no score")
                  and "Correctness: 8 of 10 checks passed" in scores[0] and not shown_as_text(report),
                  "report.txt of a student forging Score lines: one Score line, no control", (scores, shown_as_text(report)))
            made = re.findall(rb"^make(?:\[\d+\])?: \*\*\*.*$", report, re.M)
            check(not made, "report.txt of a grade that lost points: no line of make's (make: ***)", made[:2])
            lines = report.decode("utf-8", "replace").split("\n")
            theirs = [l for l in lines if "17/17" in l and not l.startswith("      | ") and
                      not re.match(r"  \S.* \.+ (FAIL|ERROR|SKIP|OK) +\(", l) and not l.startswith("      HINT: ")]
            check(not theirs, "report.txt: the student's text only under the log's margin or after "
                  "a check's verdict, never a line of its own", theirs[:3])
            for f in ("gradescope.json", "report.md", "report.html", "junit.xml", "record.json"):
                data = open(os.path.join(out, "students", sid, f), "rb").read()
                check(not shown_as_text(data) and b"Score: 17/17" in data,
                      "%s of a student forging Score lines: the text shown as escapes" % f, shown_as_text(data))
            check_markup(os.path.join(out, "students", sid), name)
        elif kind == "broken":
            check(row.get("state") == "graded" and row.get("total") == "" and row.get("max") == ""
                  and row.get("correctness") == "0/10 checks"
                  and row.get("exit_status") == "1" and "build failed" in row.get("reason", ""),
                  "a build failure has a full row with zeros and the reason", row)
        else:
            want = {"file": "not a folder", "toplink": "symbolic link"}.get(kind, "symbolic link")
            check(row.get("state") == "refused" and row.get("total") == "0" and want in row.get("reason", ""),
                  "refused with a clear reason: %r" % name, row)
            sid = [o for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl"), "rb"))
                   if (bytes.fromhex(o["student_hex"]) if "student_hex" in o else o["student"].encode()) == name][0]["id"]
            md = open(os.path.join(out, "students", sid, "report.md"), encoding="utf-8", errors="replace").read()
            check("refused, so nothing was graded" in md.replace("\\", "") and "a point was lost" not in md,
                  "a refused submission's report says it was refused and why, not that a point was lost: %r" % name,
                  md[:400])
    # What a student is given names their file as their submission has it, never the batch's
    # folders (OUT/work/<id>/tree, OUT/work/<id>/grade) or the grader's Makefile.
    inside = {os.fsencode(os.path.realpath(out)), os.fsencode(os.path.abspath(out)), b"/work/s"}
    named = []
    for sid in os.listdir(os.path.join(out, "students")):
        for p, data in all_bytes_under(os.path.join(out, "students", sid)):
            if os.path.basename(p) in ("record.json", "results.json"):
                continue  # the instructor's records
            named += [(os.path.basename(p), w) for w in inside | {b"Makefile:"} if w in data]
    check(not named, "no report, log or export of a student names the batch's folders or the Makefile", named[:6])
    broken = [o for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl"), "rb"))
              if o.get("student") == "build-fails"][0]["id"]
    report = open(os.path.join(out, "students", broken, "report.txt"), "rb").read()
    check(re.search(rb"\(01-coalescing/coalescing\.cu\)\n", report) and
          re.search(rb"\| 01-coalescing/coalescing\.cu[:(]1\S* error", report) and
          re.search(rb"Details: results\.json\n", report) and
          os.path.exists(os.path.join(out, "students", broken, "coalescing.build.log")),
          "a build failure's report names the file and line as the submission has them, and the "
          "log it names lies beside it", report[-1500:])
    passwd_line = open("/etc/passwd", "rb").readline().strip()
    leaked = [p for p, data in all_bytes_under(out) if passwd_line in data]
    check(not leaked, "nothing of /etc/passwd was read into the output", leaked)

    lines = open(os.path.join(out, "gradebook.jsonl"), "rb").read().splitlines()
    objs = [json.loads(l) for l in lines]
    got = set()
    for o in objs:
        got.add(bytes.fromhex(o["student_hex"]) if "student_hex" in o else o["student"].encode())
    check(len(objs) == len(STUDENTS) and got == set(STUDENTS),
          "JSON Lines: one object per student, names exactly (student_hex where not UTF-8)")

    junit = ET.parse(os.path.join(out, "junit.xml")).getroot()
    suites = junit.findall("testsuite")
    check(junit.tag == "testsuites" and len(suites) == len(STUDENTS) and
          all(int(s.get("tests")) == len(s.findall("testcase")) for s in suites),
          "JUnit XML parses; one suite per student and lab, counts match", len(suites))

    allowed_vis = {"hidden", "after_due_date", "after_published", "visible"}
    bad = []
    for o in objs:
        gs = json.load(open(os.path.join(out, "students", o["id"], "gradescope.json")))
        tests = gs.get("tests", [])
        if not isinstance(gs.get("score"), (int, float)) or not isinstance(tests, list):
            bad.append((o["id"], "top level"))
        if abs(sum(t["score"] for t in tests) - gs["score"]) > 1e-9:
            bad.append((o["id"], "score is not the sum of the tests"))
        for t in tests:
            if not (isinstance(t.get("name"), str) and isinstance(t.get("score"), (int, float)) and
                    isinstance(t.get("max_score"), (int, float)) and isinstance(t.get("output"), str) and
                    t.get("visibility") in allowed_vis and t.get("status", "passed") in ("passed", "failed")):
                bad.append((o["id"], t))
            if "hidden" in t["name"] and t["visibility"] != "after_due_date":
                bad.append((o["id"], "hidden check visible", t["name"]))
        if o["state"] == "graded" and o["exit_status"] != 1:
            if gs["score"] != 0 or len(tests) != 11 or not any(t["visibility"] == "after_due_date" for t in tests) \
                    or not gs["output"].startswith("Speed not graded (no GPU). Correctness: 10 of 10 checks passed."):
                bad.append((o["id"], "content", gs["score"], len(tests)))
        for f in ("report.md", "report.html", "junit.xml"):
            if not os.path.exists(os.path.join(out, "students", o["id"], f)):
                bad.append((o["id"], "missing " + f))
    check(not bad, "Gradescope results.json per student: the specification's fields, hidden checks "
          "after_due_date, speed not counted under the emulator", bad[:5])
    return subs, out


def test_resume_and_lock(tmp, subs_all, out_all):
    subs = os.path.join(tmp, "subs6")
    make_submissions(subs, SUBSET)
    # The uninterrupted run's gradebook for these six: the hostile run graded them; a batch of
    # the six into a copy of its output folder finds every result current and grades nothing.
    ref_out = os.path.join(tmp, "out-ref")
    shutil.copytree(out_all, ref_out, symlinks=True)
    r = batch("grade", subs, ref_out)
    log = r.stdout.decode(errors="replace")
    check(r.returncode == 0 and log.count("graded earlier") == len(SUBSET),
          "resume: results already on disk are kept, not graded again", log[-1500:])
    ref = open(os.path.join(ref_out, "gradebook.csv"), "rb").read()

    out = os.path.join(tmp, "out-kill")
    a = batch("grade", subs, out, wait=False)
    lock = os.path.join(out, ".lock")
    for _ in range(200):
        if os.path.exists(lock) and open(lock).read().startswith("pid"):
            break
        time.sleep(0.1)
    b = batch("grade", subs, out)
    msg = b.stdout.decode(errors="replace")
    check(b.returncode == 2 and "another grading run holds" in msg,
          "two batches on one output: the second says another run holds it", msg)

    # Kill -9 once two students are recorded and the third is being graded.
    students = os.path.join(out, "students")
    def records():
        return sum(os.path.exists(os.path.join(students, d, "record.json"))
                   for d in (os.listdir(students) if os.path.isdir(students) else []))
    t0 = time.time()
    while records() < 2 and time.time() - t0 < 300 and a.poll() is None:
        time.sleep(0.05)
    # (half a second in: the batch has begun the third, and a student's grading takes longer;
    # three seconds were enough for the other four to finish, once the emulator's WHERE counts
    # got faster)
    time.sleep(0.5)
    os.kill(a.pid, signal.SIGKILL)
    a.wait()
    n_before = records()
    check(2 <= n_before < len(SUBSET), "kill -9 in the middle of the batch (%d of %d recorded)" %
          (n_before, len(SUBSET)))
    def grading_left():
        left = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if out.encode() in open("/proc/%s/cmdline" % pid, "rb").read():
                        left.append(pid + " " + open("/proc/%s/cmdline" % pid, "rb").read()
                                    .replace(b"\0", b" ").decode(errors="replace")[:120])
                except OSError:
                    pass
        return left
    # The keepers die by a parent-death signal and kill their groups: on a loaded machine
    # (make -j test beside other builds) that takes more than a moment, so allow 30 s.
    deadline = time.time() + 30
    left = grading_left()
    while left and time.time() < deadline:
        time.sleep(0.5)
        left = grading_left()
    check(not left, "no grading process outlives the killed batch", left)
    check(not os.path.exists(os.path.join(out, "gradebook.csv")), "a killed batch left no gradebook")

    r = batch("grade", subs, out)
    log = r.stdout.decode(errors="replace")
    check(r.returncode == 0 and log.count("graded earlier") == n_before,
          "the same command resumes where it stopped (%d kept)" % n_before, log[-1500:])
    got = open(os.path.join(out, "gradebook.csv"), "rb").read()
    check(got == ref, "resumed gradebook is byte-identical to an uninterrupted run's",
          "\n" + ref.decode(errors="replace") + "\nvs\n" + got.decode(errors="replace"))
    check(open(os.path.join(out, "gradebook.jsonl"), "rb").read() ==
          open(os.path.join(ref_out, "gradebook.jsonl"), "rb").read(),
          "resumed gradebook.jsonl is byte-identical too")
    return subs, os.path.join(ref_out, "gradebook.csv")


def test_unisolated(tmp):
    """Where student code cannot be isolated, a batch refuses to grade unless told to, and a
    grade made anyway says so in the gradebook (CSV and JSON Lines)."""
    subs = os.path.join(tmp, "subs-unisolated")
    make_submissions(subs, [b"a|b"])
    out = os.path.join(tmp, "out-unisolated")
    env = {"GRADER_SANDBOX": "none"}
    r = batch("grade", subs, out + "-refused", env=env)
    text = r.stdout.decode(errors="replace")
    _, rows = read_csv(os.path.join(out + "-refused", "gradebook.csv"))
    row = dict(zip(rows[0], rows[1])) if len(rows) == 2 else {}
    reports = [os.path.join(d, "report.txt") for d in
               glob.glob(os.path.join(out + "-refused", "students", "*"))]
    told = any("ALLOW_UNISOLATED=1" in open(p, errors="replace").read() for p in reports)
    check(row.get("total") == "" and row.get("exit_status") == "2"
          and "cannot be isolated" in row.get("reason", "") and told,
          "no sandbox: no student code runs (0 points, exit 2, the reason in the gradebook) and "
          "the report says how to grade anyway", (row, text[-1500:]))
    r = batch("grade", subs, out, "ALLOW_UNISOLATED=1", env=env)
    text = r.stdout.decode(errors="replace")
    _, rows = read_csv(os.path.join(out, "gradebook.csv")) if os.path.exists(
        os.path.join(out, "gradebook.csv")) else (b"", [[]])
    header = rows[0]
    iso = [dict(zip(header, row)).get("isolation") for row in rows[1:]]
    check(r.returncode in (0, 1) and iso == ["NOT tamper-proof"],
          "ALLOW_UNISOLATED=1: graded, and the gradebook says NOT tamper-proof", (iso, text[-1500:]))
    lines = open(os.path.join(out, "gradebook.jsonl")).read().splitlines() if os.path.exists(
        os.path.join(out, "gradebook.jsonl")) else []
    check(len(lines) == 1 and json.loads(lines[0]).get("tamper_proof") is False,
          "gradebook.jsonl: tamper_proof is false", lines)
    gs = [json.load(open(p)) for p in glob.glob(os.path.join(out, "students", "*", "gradescope.json"))]
    check(len(gs) == 1 and "not tamper-proof" in gs[0].get("output", ""),
          "Gradescope results: the output says the grade is not tamper-proof", gs)


def test_html(tmp, out):
    # A report with speed measured (a GPU run's shape), so the chart has bars and thresholds.
    sid = json.loads(open(os.path.join(out, "gradebook.jsonl"), "rb").readline())["id"]
    res = json.load(open(os.path.join(out, "students", sid, "results.json")))
    res["mode"] = "gpu"
    for lab in res["labs"]:
        for c in lab["checks"]:
            if c["kind"] == "speed":
                c.update(verdict="FAIL", earned=0, message="0.14x the reference (needs 0.50x)")
                c["speed"] = {"ratio_median": 0.14, "threshold": lab["threshold"]}
    second = json.loads(json.dumps(res["labs"][0]))
    second.update(lab="transpose", number="06", threshold=0.75)
    for c in second["checks"]:
        if c["kind"] == "speed":
            c.update(verdict="OK", earned=5, message="0.98x the reference (needs 0.75x)")
            c["speed"] = {"ratio_median": 0.98, "threshold": 0.75}
    second["score"] = 15
    res["labs"].append(second)
    fixture = os.path.join(tmp, "gpu-results.json")
    json.dump(res, open(fixture, "w"))
    dest = os.path.join(tmp, "export")
    r = subprocess.run([BATCH, "export", "RESULTS=" + fixture, "NAME=<Zoë> & \"friends\"", "DEST=" + dest],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    html = open(os.path.join(dest, "report.html"), encoding="utf-8").read()
    check(r.returncode == 0 and "<svg" in html and "&lt;Zoë&gt; &amp; &quot;friends&quot;" in html
          and "0.14x" in html and "0.98x" in html and "<script" not in html and "http" not in html.split("<svg")[0].replace("http://www.w3.org", ""),
          "HTML report: self-contained, escaped, an inline SVG chart with ratios", r.stdout)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium and os.environ.get("TEST_INSTALL", "yes") == "no":
        skip("HTML report rendered in headless Chromium", "chromium is not installed, and TEST_INSTALL=no installs nothing")
        return
    if not chromium and shutil.which("apt-get"):
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        print("  installing chromium (apt-get) to render the HTML report...")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        chromium = shutil.which("chromium")
    if not chromium:
        skip("HTML report rendered in headless Chromium", "chromium is not installed and apt-get could not install it")
        return
    png = os.path.join(ROOT, BUILD, "tests", "batch-report.png")
    os.makedirs(os.path.dirname(png), exist_ok=True)
    if os.path.exists(png):
        os.unlink(png)
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + os.path.join(tmp, "chromium-profile"),
                        "--screenshot=" + png, "--window-size=900,900",
                        "file://" + os.path.join(dest, "report.html")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    ok = os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 10000
    check(ok, "HTML report rendered by headless Chromium to %s" % os.path.relpath(png, ROOT),
          r.stdout.decode(errors="replace")[-800:])


def test_gradescope_kit(tmp):
    kit = os.path.join(tmp, "kit")
    r = subprocess.run(["grader/batch/gradescope/make-kit.sh", kit], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=dict(os.environ, LAB="01"))
    import zipfile
    names = zipfile.ZipFile(kit + ".zip").namelist() if os.path.exists(kit + ".zip") else []
    modes = {i.filename: i.external_attr >> 16 for i in zipfile.ZipFile(kit + ".zip").infolist()} if names else {}
    check(r.returncode == 0 and "setup.sh" in names and "run_autograder" in names
          and modes.get("run_autograder", 0) & 0o111 and "workbook/Makefile" in names
          and not any(n.startswith("workbook/build/") for n in names),
          "Gradescope kit: setup.sh and run_autograder at the top of the zip, the workbook inside",
          r.stdout.decode(errors="replace")[-500:])
    syntax = [subprocess.run(["bash", "-n", os.path.join(kit, f)]).returncode for f in ("setup.sh", "run_autograder")]
    check(syntax == [0, 0], "Gradescope kit scripts parse (bash -n)")
    # A trial of run_autograder outside Gradescope: its own root, a flat-file submission, and
    # the emulator objects already built here (setup.sh builds them on Gradescope).
    ag = os.path.join(tmp, "ag")
    os.makedirs(os.path.join(ag, "submission"))
    shutil.copytree(kit, os.path.join(ag, "source"), symlinks=True)
    for sub in ("emu", "host"):
        if os.path.isdir(os.path.join(ROOT, BUILD, sub)):
            shutil.copytree(os.path.join(ROOT, BUILD, sub), os.path.join(ag, "source", "workbook", "build", sub),
                            symlinks=True)
    open(os.path.join(ag, "submission", "coalescing.cu"), "wb").write(SOLUTION)
    env = dict(os.environ, AUTOGRADER=ag)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    r = subprocess.run([os.path.join(ag, "source", "run_autograder")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=env)
    try:
        gs = json.load(open(os.path.join(ag, "results", "results.json")))
    except (OSError, ValueError) as e:
        gs = {"error": str(e)}
    tests = gs.get("tests", [])
    speed = [t for t in tests if "speed" in t.get("name", "")]
    check(gs.get("score") == 0 and len(tests) == 11 and speed and speed[0]["max_score"] == 0
          and "graded on a GPU" in gs.get("output", "")
          and gs.get("output", "").startswith("Speed not graded (no GPU). Correctness: 10 of 10 checks passed."),
          "Gradescope run_autograder (trial): correctness 10 of 10 checks on the emulator, no score (speed "
          "left to a GPU)",
          r.stdout.decode(errors="replace")[-1500:] + json.dumps(gs)[:500])
    # Again as Gradescope runs it: as root in a container whose seccomp profile refuses new
    # namespaces (tests/sandbox/no_namespaces.c stands in for Docker's default profile). The
    # grader falls back to Landlock and another uid, and grades for real.
    wrap = os.path.join(tmp, "no-namespaces")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "tests/sandbox/no_namespaces.c", "-o", wrap], check=True)
    r = subprocess.run([wrap, os.path.join(ag, "source", "run_autograder")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=env)
    try:
        gs = json.load(open(os.path.join(ag, "results", "results.json")))
    except (OSError, ValueError) as e:
        gs = {"error": str(e)}
    text = r.stdout.decode(errors="replace")
    check(gs.get("score") == 0 and "Correctness: 10 of 10 checks passed" in gs.get("output", "")
          and "cannot be isolated" not in text + json.dumps(gs) and "not tamper-proof" not in text,
          "Gradescope run_autograder where namespaces are refused: still 10 of 10 checks, isolated (Landlock)",
          text[-1500:] + json.dumps(gs)[:500])


def test_points(tmp):
    """Points measure progress (no GPU): a batch of a non-submitter, the skeleton with a comment
    added, the skeleton with a variable renamed, the solution and a misplaced file. Every row says
    speed was not graded and gives no total, only the correctness checks passed; the non-submitter
    is "not handed in", the commented skeleton "not started", the misplaced file its fix, in the
    batch's lines and every export. Under a course config that gives correctness points, the
    labs not started (and not handed in, and misplaced) earn 0, the renamed skeleton and the
    solution their correctness points."""
    skeleton = open(os.path.join(ROOT, "labs/01-coalescing/coalescing.cu"), "rb").read()
    subs = os.path.join(tmp, "subs-points")
    files = {"nosub": ("notes/readme.txt", b"nothing yet\n"),
             "comment": ("01-coalescing/coalescing.cu", b"// my plan: coalesce it\n\n" + skeleton + b"\n/* todo */\n"),
             "renamed": ("01-coalescing/coalescing.cu", re.sub(rb"\bbias\b", b"offset", skeleton)),
             "solution": ("01-coalescing/coalescing.cu", SOLUTION),
             "misplaced": ("lab01/coalescing.cu", SOLUTION)}
    for who, (rel, data) in files.items():
        os.makedirs(os.path.dirname(os.path.join(subs, who, rel)))
        open(os.path.join(subs, who, rel), "wb").write(data)
    said = {"nosub": "lab 01 not handed in (no submission: no 01-coalescing/coalescing.cu",
            "comment": "lab 01 not started (01-coalescing/coalescing.cu is the workbook",
            "misplaced": "lab 01 misplaced (found lab01/coalescing.cu: it belongs in 01-coalescing/coalescing.cu; "
                         "move it there"}
    words = {"nosub": "01:no-file", "comment": "01:not-started", "misplaced": "01:misplaced"}
    for config, out in (("", os.path.join(tmp, "out-points")), ("*.correct_points=1", os.path.join(tmp, "out-points-cfg"))):
        r = batch("grade", subs, out, env={"GRADER_SET": config} if config else {})
        log = r.stdout.decode(errors="replace")
        _, rows = read_csv(os.path.join(out, "gradebook.csv"))
        by = {r0[0]: dict(zip(rows[0], r0)) for r0 in rows[1:]}
        objs = {o["student"]: o for o in map(json.loads, open(os.path.join(out, "gradebook.jsonl")))}
        print("  points%s: %s" % (" (" + config + ")" if config else "",
                                 [(n, by[n]["01-coalescing"], by[n]["total"], by[n]["max"], by[n]["correctness"],
                                   by[n]["speed"], by[n]["missing"]) for n in sorted(by)]))
        for who in files:
            row, obj = by.get(who, {}), objs.get(who, {})
            line = re.search(r"^\[\d+/5\] %s: (.*)$" % who, log, re.M)
            line = line.group(1) if line else ""
            texts = {f: open(os.path.join(out, "students", obj.get("id", "?"), f), "rb").read().decode("utf-8", "replace")
                     for f in ("report.txt", "gradescope.json", "junit.xml", "report.html", "report.md")} if obj else {}
            gs = json.loads(texts["gradescope.json"]) if texts else {}
            if not config:
                check(row.get("total") == "" and row.get("max") == "" and row.get("01-coalescing") == ""
                      and row.get("correctness") == "10/10 checks" and row.get("speed") == "not graded (no GPU)"
                      and obj.get("total") is None and obj.get("speed_graded") is False
                      and obj.get("labs", {}).get("coalescing", {}).get("score", 0) is None
                      and line.startswith("no score, speed not graded (no GPU); correctness 10 of 10 checks")
                      and gs.get("score") == 0 and gs.get("output", "").startswith("Speed not graded (no GPU).")
                      and "speed not graded (no GPU)" in texts.get("report.md", "")
                      and "speed not graded (no GPU)" in texts.get("report.html", "")
                      and "speed not graded (no GPU)" in texts.get("junit.xml", "")
                      and not any(re.search(r"Score: \d+/\d+", t) for t in texts.values()),
                      "points, no GPU: %s: speed not graded, correctness 10 of 10, no total in the CSV, "
                      "JSON Lines, the batch's line or any export" % who, (row, line, gs.get("score")))
            else:
                want = "10" if who in ("renamed", "solution") else "0"
                check(row.get("01-coalescing") == want and row.get("total") == want and row.get("max") == "10"
                      and gs.get("score") == int(want) and line.startswith(want + "/10 "),
                      "points, correct_points=1: %s earns %s of its 10 correctness points%s" %
                      (who, want, "" if want == "10" else " (no work of its own)"), (row, line, gs.get("score")))
            if who in said:
                # (report.txt is what the student saw: the grader's own words for a lab not started)
                unsaid = [f for f, t in texts.items() if said[who] not in t.replace("\\", "").replace("&#39;", "'")
                          and not (f == "report.txt" and who == "comment" and "coalescing: not started: the file is the "
                                   "workbook's skeleton, comments and white space aside, so it earns nothing" in t)]
                check(row.get("missing") == words[who] and said[who] in row.get("reason", "") and said[who] in line
                      and not unsaid and row.get("exit_status") == "1",
                      "points: %s named in the batch's line, the CSV (%s) and every export" % (who, words[who]),
                      (row.get("missing"), line, unsaid))
            else:
                check(row.get("missing") == "" and row.get("exit_status") == "2" and
                      not any(w in line + "".join(texts.values()) for w in ("not handed in", "not started", "misplaced")),
                      "points: %s is work of its own (not named as missing or not started)" % who, (row, line))
        check("5 students" in log, "points: the batch counts its students", log[-300:])


def main():
    tmp = tempfile.mkdtemp(prefix="batch-test.")
    try:
        test_input_errors(tmp)
        test_points(tmp)
        test_gpu_workers(tmp)
        subs_all, out_all = test_hostile(tmp)
        subs6, ref_book = test_resume_and_lock(tmp, subs_all, out_all)
        # make test's quick tier (QUICK=1): the HTML page, the unisolated batch and the
        # Gradescope kit are left to make test-all
        if os.environ.get("QUICK") == "1":
            print("(the quick tier: the HTML report, the unisolated batch and the Gradescope kit left to make test-all)")
        else:
            test_html(tmp, out_all)
            test_unisolated(tmp)
            test_gradescope_kit(tmp)
        r = subprocess.run(["tests/batch/slurm.sh", subs6, ref_book, SEED, LAB],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text = r.stdout.decode(errors="replace")
        # what the Slurm test said, for the quick tier's check that it ran (tests/tiers/check.sh)
        os.makedirs(os.path.join(BUILD, "tests"), exist_ok=True)
        with open(os.path.join(BUILD, "tests", "batch-slurm.txt"), "w") as f:
            f.write(text)
        print("\n".join("  " + l for l in text.splitlines() if not l[:4] in ("ok  ", "FAIL", "SKIP") and " passed, " not in l))
        for l in text.splitlines():
            if l.startswith("ok   "):
                check(True, l[5:])
            elif l.startswith("FAIL "):
                check(False, l[5:])
            elif l.startswith("SKIP "):
                skip(l[5:].split(":")[0], l[5:].split(":", 1)[-1].strip())
        if r.returncode and not any(l.startswith(("FAIL", "ok", "SKIP")) for l in text.splitlines()):
            check(False, "Slurm test ran", text[-1500:])
    finally:
        if not FAILED:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("(kept %s for a look)" % tmp)
    print("%d passed, %d failed, %d skipped" % (len(PASSED), len(FAILED), len(SKIPPED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
