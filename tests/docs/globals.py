#!/usr/bin/env python3
"""globals.py - no mutable global shared across the grader's files through a header.

    tests/docs/globals.py [ROOT]       check ROOT (default: this checkout)
    tests/docs/globals.py --selftest   a planted "extern int x;" in a grader header is caught

Reads every header (.h, .cuh, .hpp) under grader/. Each "extern" declaration (extern "C" blocks
aside) is joined up to its ";": a function's declaration passes, and so does a const object
(the object itself const: "extern const lab_task t[]", "extern const T *const p"; not
"extern const char *p", whose pointer any file may change). Any other is a mutable global that
every file including the header may write: a FAIL line names it, file and line. Such state
belongs to one file (static), the others going through a function, or is passed explicitly.
EXCEPTIONS below name the ones still allowed, each with its reason; each is named on a KNOWN
EXCEPTION line at each run, and fails once it is gone (take it off the list). Exit 1 if any.
"""
import os
import re
import shutil
import sys
import tempfile

HEADERS = (".h", ".cuh", ".hpp")

# (header under grader/, the object's name): why it may stay
EXCEPTIONS = {
}

EXTERN = re.compile(r'^\s*extern\b(?!\s*"C")')


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def declarations(path):
    """[(line, text)] of each extern declaration of the header, joined up to its ';'."""
    with open(path, errors="replace") as f:
        lines = strip_comments(f.read()).split("\n")
    out = []
    i = 0
    while i < len(lines):
        if EXTERN.match(lines[i]):
            start, text = i, lines[i]
            while ";" not in text and i + 1 < len(lines):
                i += 1
                text += " " + lines[i]
            out.append((start + 1, " ".join(text.split(";")[0].split())))
        i += 1
    return out


def judge(decl):
    """(name, mutable?) of one declaration "extern ..." (no ';')."""
    body = re.sub(r"\b(extern|static|volatile|WORKER_INTERNAL)\b", " ", decl)
    body = re.sub(r"\[[^\]]*\]", "", body).strip()  # arrays: the elements' constness decides
    if "(" in body and not re.search(r"\(\s*\*", body):
        name = re.search(r"(\w+)\s*\(", body).group(1)
        return name, False  # a function
    name = re.findall(r"\w+", body)[-1]
    kind = body[: body.rfind(name)]
    if "*" in kind:
        return name, "const" not in re.findall(r"\w+", kind[kind.rfind("*"):])
    return name, "const" not in re.findall(r"\w+", kind)


def check(root, quiet=False):
    grader = os.path.join(root, "grader")
    bad, seen = 0, set()
    for top, dirs, files in os.walk(grader):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(HEADERS):
                continue
            path = os.path.join(top, f)
            rel = os.path.relpath(path, grader)
            for line, decl in declarations(path):
                name, mutable = judge(decl)
                if not mutable:
                    continue
                if (rel, name) in EXCEPTIONS:
                    seen.add((rel, name))
                    if not quiet:
                        print("globals: KNOWN EXCEPTION grader/%s: %s (%s)"
                              % (rel, name, EXCEPTIONS[(rel, name)]))
                    continue
                bad += 1
                if not quiet:
                    print("globals: FAIL grader/%s:%d: '%s' is a mutable global shared by every "
                          "file that includes the header; make it static in its one file, the "
                          "others going through a function, or pass it explicitly"
                          % (rel, line, decl))
    for rel, name in sorted(set(EXCEPTIONS) - seen):
        bad += 1
        print("globals: FAIL the exception for grader/%s: %s matches nothing any more: take it "
              "off EXCEPTIONS in tests/docs/globals.py" % (rel, name))
    return bad


def selftest():
    here = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    tmp = tempfile.mkdtemp(prefix="globals-selftest.")
    try:
        shutil.copytree(os.path.join(here, "grader"), os.path.join(tmp, "grader"),
                        ignore=shutil.ignore_patterns("*.o", "build"))
        if check(tmp, quiet=True):
            print("globals: FAIL selftest: the copy fails before anything is planted")
            return 1
        planted = os.path.join(tmp, "grader", "harness", "harness.h")
        cases = [("extern int planted_flag;", 1), ("extern const char *planted_name;", 1),
                 ("extern volatile sig_atomic_t planted_stop;", 1),
                 ("extern struct pool planted_pool WORKER_INTERNAL;", 1),
                 ("extern const int planted_table[];", 0),
                 ("extern const char *const planted_names[];", 0),
                 ("extern int planted_function(int a,\n                           int b);", 0)]
        with open(planted) as f:
            original = f.read()
        for text, want in cases:
            with open(planted, "w") as f:
                f.write(original + "\n" + text + "\n")
            got = check(tmp, quiet=True)
            if got != want:
                print("globals: FAIL selftest: '%s' gave %d failure(s), expected %d"
                      % (text, got, want))
                return 1
            print("globals: selftest: planted '%s' %s" % (" ".join(text.split()),
                  "caught" if want else "let pass (not a mutable object)"))
        print("globals: selftest: %d planted declarations judged as expected" % len(cases))
        return 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--selftest"]:
        sys.exit(selftest())
    ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    n = check(ROOT)
    print("globals: %s" % ("%d FAIL" % n if n else
                           "no mutable global shared through a grader header"))
    sys.exit(1 if n else 0)
