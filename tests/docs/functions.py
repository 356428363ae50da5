#!/usr/bin/env python3
"""functions.py - no function of the grader over 80 lines without the reason in its comment, and
no source file of the grader over 800 lines.

    tests/docs/functions.py [ROOT]
    tests/docs/functions.py --selftest     (a planted long function is caught, its reason heard)

Reads every C, CUDA and C++ file under grader/ (a function: a line at column 0 that opens a
parameter list, its body from the first "{" to the brace that closes it) and every awk file
(a "function NAME(" line to the "}" at column 0). A function longer than 80 lines passes only
when the comment right above it says why, in the words the grader uses for that: "Longer than
most functions here: <the reason>". Each one that does not prints a FAIL line; exit 1 if any.
A source file (C, CUDA, C++, a header, awk, a shell script) longer than 800 lines fails too,
whatever it says: a file that long holds more than one concern, and is split along its seams.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
LIMIT = 80
FILE_LIMIT = 800
REASON = "Longer than most functions here"
C_HEAD = re.compile(r"^[A-Za-z_][\w \*]*\b\w+\s*\([^;]*$")


def comment_above(lines, i, awk):
    out = []
    j = i - 1
    while j >= 0:
        t = lines[j]
        if awk and t.startswith("#"):
            out.insert(0, t)
        elif not awk and (t.startswith(("/*", " *")) or t.rstrip().endswith("*/")):
            out.insert(0, t)
        else:
            break
        j -= 1
    text = " ".join(re.sub(r"^\s*(#|/\*+|\*+/?)", " ", t) for t in out)
    return " ".join(text.split())


def c_functions(lines):
    i = 0
    while i < len(lines):
        if C_HEAD.match(lines[i]) and not lines[i].startswith(("typedef", "struct", "enum", "static const")):
            j = i
            while j < len(lines) and "{" not in lines[j] and ";" not in lines[j]:
                j += 1
            if j < len(lines) and "{" in lines[j] and (lines[j].startswith("{") or j == i):
                depth, k, started = 0, j, False
                while k < len(lines):
                    depth += lines[k].count("{") - lines[k].count("}")
                    started = started or "{" in lines[k]
                    if started and depth == 0:
                        break
                    k += 1
                yield i, k - i + 1
                i = k
        i += 1


def awk_functions(lines):
    for i, t in enumerate(lines):
        if t.startswith("function "):
            k = i
            while k < len(lines) and lines[k] != "}":
                k += 1
            yield i, k - i + 1


def main():
    fails = n = 0
    files = []
    for ext in ("c", "cu", "cpp", "awk"):
        files += glob.glob(os.path.join(ROOT, "grader", "**", "*." + ext), recursive=True)
    for path in sorted(files):
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        awk = path.endswith(".awk")
        for i, length in (awk_functions if awk else c_functions)(lines):
            n += 1
            if length > LIMIT and REASON not in comment_above(lines, i, awk):
                fails += 1
                print("FAIL %s:%d: a function of %d lines (%s) with no \"%s: ...\" in the comment above it"
                      % (os.path.relpath(path, ROOT), i + 1, length, lines[i].strip()[:60], REASON))
    print("functions: %d in grader/, %d over %d lines without their reason" % (n, fails, LIMIT))
    sources = []
    for ext in ("c", "cu", "cpp", "h", "cuh", "awk", "sh", "py"):
        sources += glob.glob(os.path.join(ROOT, "grader", "**", "*." + ext), recursive=True)
    long_files = 0
    for path in sorted(sources):
        count = open(path, encoding="utf-8", errors="replace").read().count("\n")
        if count > FILE_LIMIT:
            long_files += 1
            print("FAIL %s: %d lines, over the house's %d: split it along its seams"
                  % (os.path.relpath(path, ROOT), count, FILE_LIMIT))
    print("files: %d grader sources, %d over %d lines" % (len(sources), long_files, FILE_LIMIT))
    return 1 if fails or long_files else 0


def selftest():
    import subprocess
    import tempfile
    body = "int f(int x)\n{\n" + "    x++;\n" * 90 + "    return x;\n}\n"
    ok = True
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "grader"))
        for comment, want in (("/* f: one step. */\n", 1),
                              ("/* f: one step. Longer than most\n * functions here: a test. */\n", 0)):
            with open(os.path.join(root, "grader", "x.c"), "w") as f:
                f.write(comment + body)
            got = subprocess.run([sys.executable, os.path.abspath(__file__), root],
                                 stdout=subprocess.DEVNULL).returncode
            if got != want:
                print("FAIL functions selftest: a 94-line function %s gave exit %d, want %d"
                      % ("with its reason" if want == 0 else "without a reason", got, want))
                ok = False
        with open(os.path.join(root, "grader", "x.c"), "w") as f:  # a long file of short functions
            f.write("".join("int f%d(int x)\n{\n    return x;\n}\n" % i for i in range(201)))
        got = subprocess.run([sys.executable, os.path.abspath(__file__), root],
                             stdout=subprocess.DEVNULL).returncode
        if got != 1:
            print("FAIL functions selftest: an 804-line file of short functions gave exit %d, want 1" % got)
            ok = False
    print("functions selftest: a long function without its reason caught, with it let be; a long file caught" if ok else "")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    sys.exit(main())
