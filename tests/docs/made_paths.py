#!/usr/bin/env python3
"""made_paths.py - what make builds is never taken from make's command line.

grader/make/paths.mk lists, in MADE_PATHS, the variables that name what make builds (the
driver, the worker, the build folders, ...): make stops when one is given on its command line,
since it would write there (make grade DRIVER=/usr/bin/true would link the driver over that
program). This test derives that list from the makefiles themselves and fails when the two
differ, so that a variable added to a makefile is guarded without anyone remembering to:
  - a variable assigned with = or := (not ?=, which is a setting) whose value starts with
    $(BUILD) or with another such variable, and
  - a variable that is the head of a rule ($(NAME): ... or $(NAME)/...: ...).
Then it runs make: DRIVER=<a path> on the command line stops make with the message and writes
nothing there, and GPU=h200 (a slip for GPU_PROFILE=) names GPU_PROFILE in its message."""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSIGN = re.compile(r"^([A-Z][A-Z0-9_]*)\s*(?::=|::=|=)\s*(.*)$")
TARGET = re.compile(r"^\$\(([A-Z][A-Z0-9_]*)\)[ :/]")


def makefiles():
    pats = ["Makefile", "grader/**/*.mk", "tests/**/*.mk", "common/**/*.mk", "slides/*.mk"]
    out = []
    for p in pats:
        out += sorted(glob.glob(os.path.join(ROOT, p), recursive=True))
    return [f for f in out if "/build/" not in f[len(ROOT):]]


def derived():
    defs, targets = {}, set()
    for f in makefiles():
        text = open(f, encoding="utf-8").read().replace("\\\n", " ")
        for line in text.splitlines():
            m = ASSIGN.match(line)
            if m:
                defs.setdefault(m.group(1), []).append(m.group(2).strip())
            t = TARGET.match(line)
            if t:
                targets.add(t.group(1))
    made, grew = set(), True
    while grew:
        grew = False
        for name, values in defs.items():
            if name in made or name == "BUILD":
                continue
            heads = [(v.split() or [""])[0] for v in values]
            if any(h.startswith("$(%s)" % x) for h in heads for x in made | {"BUILD"}):
                made.add(name)
                grew = True
    return (made | targets) - {"BUILD"}


def listed():
    text = open(os.path.join(ROOT, "grader/make/paths.mk"), encoding="utf-8").read()
    m = re.search(r"^MADE_PATHS := ((?:.*\\\n)*.*)$", text, re.M)
    if not m:
        sys.exit("made_paths: no MADE_PATHS list in grader/make/paths.mk")
    return set(m.group(1).replace("\\\n", " ").split())


def run_make(*args):
    return subprocess.run(["make", "-n", "--no-print-directory", *args], cwd=ROOT,
                          capture_output=True, text=True)


def main():
    fails = []
    want, have = derived(), listed()
    if want - have:
        fails.append("grader/make/paths.mk's MADE_PATHS lacks %s: each names what make builds "
                     "(add it to the list)" % " ".join(sorted(want - have)))
    if have - want:
        fails.append("MADE_PATHS lists %s, which no makefile builds (take it out of the list)"
                     % " ".join(sorted(have - want)))
    with tempfile.TemporaryDirectory() as tmp:
        aim = os.path.join(tmp, "not-here")
        r = run_make("grade", "DRIVER=" + aim)
        if r.returncode == 0 or "DRIVER=%s on make's command line" % aim not in r.stderr:
            fails.append("make grade DRIVER=%s was not stopped with its message (exit %d: %s)"
                         % (aim, r.returncode, r.stderr.strip()[-300:]))
        if os.path.exists(aim):
            fails.append("make grade DRIVER=... wrote %s" % aim)
    r = run_make("explain", "LAB=01", "GPU=h200")
    if r.returncode == 0 or "GPU_PROFILE=<gpu>" not in r.stderr:
        fails.append("make explain GPU=h200 did not point to GPU_PROFILE= (exit %d: %s)"
                     % (r.returncode, r.stderr.strip()[-300:]))
    r = run_make("grade", "BUILD=" + os.path.join(ROOT, "build"))
    if "on make's command line" in r.stderr:
        fails.append("make grade BUILD=build (a setting) was refused: " + r.stderr.strip()[-300:])
    for f in fails:
        print("made_paths: FAIL " + f)
    if not fails:
        print("made_paths: %d variables name what make builds; each refused on make's command "
              "line (DRIVER= and GPU= tried)" % len(have))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
