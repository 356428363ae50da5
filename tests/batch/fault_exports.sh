#!/usr/bin/env bash
# fault_exports.sh - a fault reaches every export as the student saw it: a seeded overrun (lab 01,
# tests/cheats/h134) and a seeded race (lab 06, tests/cheats/h130) graded under the CPU emulator,
# then `grade-batch export` of each results.json. results.json's check holds the fault as data
# ("fault": kind, file, line, kernel, block, thread, hint, fold: grader/fault/fault.h), and
# Gradescope's results (and the gradebook's reason), the JUnit XML, the Markdown and the HTML
# page each show its file:line, kernel, block and thread, the same the terminal showed the student. A hostile fault (a kernel
# and file named with markup, a quote and an escape) is escaped in each format; and with the
# "fault" object taken out of results.json the same checks fail (the exports read it, not the
# message). Usage: tests/batch/fault_exports.sh [BUILD]   (EMU=1 make grade's tree: no GPU needed)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$build/tests/fault-exports
batch=$build/host/grade-batch
[ -x "$batch" ] || make -s --no-print-directory "$batch"
rm -rf "$work"
mkdir -p "$work"
grade() { # NAME CASE LAB: the case as the student's file of LAB, graded under the emulator
    local name=$1 case=$2 lab=$3 dir
    dir=$(ls -d labs/[0-9][0-9]-"$lab")
    mkdir -p "$work/$name/tree"
    cp -r "$dir" "$work/$name/tree/"
    cp "tests/cheats/$case" "$work/$name/tree/$(basename "$dir")/$lab.cu"
    EMU=1 grader/driver/grade.sh STUDENT="$work/$name/tree" LAB="$lab" SEED=0x5eed \
        GRADE_DIR="$work/$name/grade" GRADE_WHERE=0 >"$work/$name/out.txt" 2>&1 || true
    [ -f "$work/$name/grade/results.json" ] ||
        { echo "FAIL fault exports: $name was not graded (see $work/$name/out.txt)"; exit 1; }
    "$batch" export RESULTS="$work/$name/grade/results.json" DEST="$work/$name/exports" NAME="$name" >/dev/null
}
grade overrun h134-coalescing-far-overrun.cu coalescing &
grade race h130-transpose-tile33-no-barrier.cu transpose &
wait %1 && wait %2
python3 - "$work" "$batch" <<'PY'
import html, json, os, re, subprocess, sys
work, batch = sys.argv[1], sys.argv[2]
failed = []

def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)

def md(s):  # as exports.c's put_md escapes
    return "".join("\\" + c if c in "\\`*_[]{}()#+-.!|~" else c for c in s) \
        .replace("<", "&lt;").replace(">", "&gt;")

def faults(results):
    return [c["fault"] for lab in results["labs"] for c in lab["checks"]
            if c["verdict"] == "FAIL" and "fault" in c]

def exports_show(name, f, exports, terminal=None, check=check):
    """Each export shows the fault's file:line, kernel, block and thread."""
    place = "%s:%d" % (f["file"], f["line"])
    where = "kernel %s, block %s, thread %s" % (f["kernel"], f["block"], f["thread"])
    gs = json.load(open(os.path.join(exports, "gradescope.json")))
    shown = "\n".join(t["output"] for t in gs["tests"])
    check(place in shown and where in shown, "%s: Gradescope's results show %s, %s" % (name, place, where))
    check("[fault: %s at %s in %s]" % (f["kind"], place, where) in gs["output"],
          "%s: the gradebook's reason (Gradescope's output, CSV, JSON Lines) names it" % name)
    page = open(os.path.join(exports, "report.html")).read()
    check(html.escape(place) in page and html.escape(where) in page,
          "%s: the HTML page shows %s, %s" % (name, place, where))
    junit = open(os.path.join(exports, "junit.xml")).read()
    check(html.escape(place) in junit and html.escape(where) in junit,
          "%s: the JUnit XML shows them" % name)
    mdown = open(os.path.join(exports, "report.md")).read()
    check(md(place) in mdown and md(where) in mdown, "%s: the Markdown shows them" % name)
    if terminal is not None:  # the line the student saw
        check(where in terminal and place in terminal,
              "%s: the terminal showed the same kernel, block, thread and line" % name)
    return page

expect = {"overrun": (r"coalescing\.cu$", {29}, "scale_rows_kernel", r"a kernel writes outside"),
          "race": (r"transpose\.cu$", {24, 28}, "transpose_tile33", r"data race on shared memory")}
for name, (file_re, lines, kernel, kind_re) in expect.items():
    res = json.load(open(os.path.join(work, name, "grade", "results.json")))
    fs = faults(res)
    check(len(fs) > 0, "%s: results.json holds a failing check's fault object" % name)
    if not fs:
        continue
    f = fs[0]
    check(re.search(file_re, f.get("file", "")) is not None and f.get("line") in lines,
          "%s: its file and line (%s:%s)" % (name, f.get("file"), f.get("line")))
    check(f.get("kernel") == kernel, "%s: its kernel (%s)" % (name, f.get("kernel")))
    check(re.fullmatch(r"\(\d+,\d+,\d+\)", f.get("block", "")) is not None and
          re.fullmatch(r"\(\d+,\d+,\d+\)", f.get("thread", "")) is not None,
          "%s: its block and thread (%s, %s)" % (name, f.get("block"), f.get("thread")))
    check(re.search(kind_re, f.get("kind", "")) is not None and f.get("fold", "").startswith(f["kind"] + "|"),
          "%s: its kind and fold key (%s)" % (name, f.get("kind")))
    terminal = open(os.path.join(work, name, "out.txt")).read()
    exports_show(name, f, os.path.join(work, name, "exports"), terminal)

    # Taken out of results.json, the exports no longer show it: what they show is the object's.
    for c in (c for lab in res["labs"] for c in lab["checks"]):
        c.pop("fault", None)
    bare = os.path.join(work, name, "bare.json")
    json.dump(res, open(bare, "w"))
    out = os.path.join(work, name, "bare")
    subprocess.run([batch, "export", "RESULTS=" + bare, "DEST=" + out, "NAME=" + name], check=True,
                   stdout=subprocess.DEVNULL)
    shown_bare = []
    exports_show(name, f, out, check=lambda ok, what: shown_bare.append(what) if ok else None)
    check(not shown_bare, "%s: without the fault object no export shows it (%s)" %
          (name, "; ".join(shown_bare) or "each of the 5 lacks it"))

# A hostile fault: markup, a quote and an escape in the kernel's and the file's names
res = json.load(open(os.path.join(work, "overrun", "grade", "results.json")))
for c in (c for lab in res["labs"] for c in lab["checks"] if "fault" in c):
    c["fault"].update(kernel="<script>k</script>", file="a\"b&\x1b[31m.cu", hint="</small><b>x")
hostile = os.path.join(work, "hostile.json")
json.dump(res, open(hostile, "w"))
out = os.path.join(work, "hostile")
subprocess.run([batch, "export", "RESULTS=" + hostile, "DEST=" + out, "NAME=hostile"], check=True,
               stdout=subprocess.DEVNULL)
page = open(os.path.join(out, "report.html")).read()
check("<script>" not in page and "</small><b>" not in page and "\x1b" not in page and
      "&lt;script&gt;k&lt;/script&gt;" in page and "a&quot;b&amp;\\x1b[31m.cu" in page,
      "hostile: the HTML page escapes the fault's names (markup, quote, escape)")
gs = json.load(open(os.path.join(out, "gradescope.json")))
shown = "\n".join(t["output"] for t in gs["tests"])
check("\x1b" not in shown and "<script>k</script>" in shown and 'a"b&\\x1b[31m.cu' in shown,
      "hostile: Gradescope's results hold them as JSON text, the escape made visible")
junit = open(os.path.join(out, "junit.xml")).read()
check("<script>" not in junit and "\x1b" not in junit, "hostile: the JUnit XML escapes them")
print("fault exports: %s" % ("%d failed" % len(failed) if failed else "all passed"))
sys.exit(1 if failed else 0)
PY
