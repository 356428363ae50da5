#!/usr/bin/env python3
"""docs_gen.py - `make docs-gen`: the places written for people that list every lab, derived
from the lab folders.

    grader/make/docs_gen.py            write them (make docs-gen; make new-lab runs it)
    grader/make/docs_gen.py --check    write nothing; exit 1 naming each file that differs
                                        from what it would write (make test-docs runs it)

A lab is its three folders (grader/labs/NN-name/, labs/NN-name/, solutions/NN-name/); its
number, name and title (its table.c's .title) are facts of them. From them this writes:

  README.md             its opening count of labs ("Nine CUDA C labs, each ..."), and the table
                        of labs, between its labs-table markers: one row a lab, in
                        number order, with its lesson's link and the file the student edits
  labs/workbook.ipynb   each lab's two cells, in number order where the lab cells stand: a
                        heading with its title, the lesson and the file, then `make grade LAB=NN`
  labs/skeletons.sha256 each untouched skeleton's hash (make bench calls an edited one "yours")
  labs/skeletons.normalised.sha256
                        each skeleton's hash with comments and white space aside: a lab whose
                        file is that is not started, and earns nothing (grader/plan/started.h)
  slides/NN-name.md     a deck to write, for a lab that has none (an existing deck is never
                        touched)

What people write stays theirs and stays where it is: a row's "the idea" cell, and the paragraphs
under a lab's notebook heading, are kept as they stand (a new lab's row says its title until its
author writes the idea; its notebook section has no paragraph until they write one). A lab no
longer in grader/labs/ loses its row and its cells.

The skeletons' hashes are of the skeletons as committed: where one differs from git's HEAD (a
student's edited file), or there is no git, --check leaves that file unchecked and says so, and
writing keeps it as it is.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BEGIN = ("<!-- labs-table: written by make docs-gen from the lab folders (grader/make/docs_gen.py);"
         " write a lab's idea in its row, the rest is derived -->")
END = "<!-- /labs-table -->"
HEADER = "| # | lab | the idea | you edit |\n|---|-----|----------|----------|\n"
ROW = re.compile(r"^\| (\d\d) \| \[([a-z0-9_]+)\]\(labs/(\d\d-[a-z0-9_]+)/README\.md\) \| (.*) \| `[^`]*` \|$")


def student_rel(folder, name):
    """The file a student edits in a tree laid out like labs/: "06-transpose/transpose.cu". The
    rule is grader/plan/lab_select.c's lab_student_rel, which the build and the grader read
    through lab-manifest; docs-gen reads the folders alone (it runs where nothing is built: make
    test-docs, and make new-lab before any build has seen the new lab), so it says it once more,
    here only, and tests/test_grader.c holds what it writes (labs/skeletons.sha256) to the C."""
    return f"{folder}/{name}.cu"


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def labs():
    """Every lab, in number order: (number, name, folder, title)."""
    out = []
    for folder in sorted(os.listdir(os.path.join(ROOT, "grader", "labs"))):
        m = re.fullmatch(r"(\d\d)-([a-z][a-z0-9_]*)", folder)
        if not m or not os.path.isdir(os.path.join(ROOT, "grader", "labs", folder)):
            continue
        table = read(f"grader/labs/{folder}/table.c")
        t = re.search(r'\.title\s*=\s*"((?:[^"\\]|\\.)*)"', table)
        if not t:
            sys.exit(f"docs-gen: grader/labs/{folder}/table.c has no .title = \"...\" (the lab's title, "
                     "which the README, the notebook and the slides show)")
        out.append((m.group(1), m.group(2), folder, t.group(1).replace('\\"', '"')))
    return out


def readme(text, all_labs):
    """README.md with its table of labs written between the markers."""
    if BEGIN not in text or END not in text:
        sys.exit("docs-gen: README.md has no labs-table markers around its table of labs (" + BEGIN +
                 " and " + END + ")")
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    ideas = {}
    for line in old.splitlines():
        m = ROW.match(line)
        if m:
            ideas[m.group(3)] = m.group(4)
    rows = "".join(f"| {num} | [{name}](labs/{folder}/README.md) | {ideas.get(folder, title)} | "
                   f"`labs/{student_rel(folder, name)}` |\n" for num, name, folder, title in all_labs)
    head, n = COUNT.subn(lambda m: count_word(len(all_labs)) + m.group(2), head, count=1)
    if n != 1:
        sys.exit("docs-gen: README.md does not open with its count of labs (\"Nine CUDA C labs, each ...\"), "
                 "which docs-gen writes")
    return head + BEGIN + "\n" + HEADER + rows + END + tail


# README.md's opening words, the count of labs: written from the lab folders, as the table is.
COUNT = re.compile(r"^([A-Z][a-z]+|\d+)( CUDA C labs, each)", re.M)
WORDS = "One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Thirteen Fourteen Fifteen Sixteen " \
        "Seventeen Eighteen Nineteen Twenty".split()


def count_word(n):
    return WORDS[n - 1] if 1 <= n <= len(WORDS) else str(n)


def notebook(text, all_labs):
    """The notebook with each lab's cells written where the lab cells stand (before the cell
    after them, `keep-md`, when there are none)."""
    nb = json.loads(text)
    cells = nb["cells"]
    is_lab = [bool(re.fullmatch(r"lab\d\d-(md|grade)", c.get("id", ""))) for c in cells]
    if any(is_lab):
        at = is_lab.index(True)
    else:
        ids = [c.get("id") for c in cells]
        if "keep-md" not in ids:
            sys.exit("docs-gen: labs/workbook.ipynb has no lab cells and no keep-md cell to put them before")
        at = ids.index("keep-md")
    prose = {}
    for c in cells:
        m = re.fullmatch(r"lab(\d\d)-md", c.get("id", ""))
        if m:
            src = c["source"]
            body = src[1:]
            while body and body[-1].startswith(("- Lesson: ", "- The file you edit: ")):
                body = body[:-1]
            prose[m.group(1)] = body  # the blank line after the heading, the paragraphs
    new = []
    for num, name, folder, title in all_labs:
        body = prose.get(num, ["\n"])
        new.append({"cell_type": "markdown", "id": f"lab{num}-md", "metadata": {},
                    "source": [f"## Lab {num}: {title}\n"] + body +
                              [f"- Lesson: `labs/{folder}/README.md`\n",
                               f"- The file you edit: `labs/{student_rel(folder, name)}`"]})
        new.append({"cell_type": "code", "id": f"lab{num}-grade", "metadata": {},
                    "execution_count": None, "outputs": [], "source": [f"!make grade LAB={num}"]})
    kept = [c for c, lab in zip(cells, is_lab) if not lab]
    nb["cells"] = kept[:at] + new + kept[at:]
    return json.dumps(nb, indent=1) + "\n"


def labs_as_committed(all_labs):
    """True when each lab's skeleton is as git's HEAD has it (a new lab's, not yet committed,
    counts as the workbook's): the hashes are the workbook's to write."""
    paths = [f"labs/{student_rel(folder, name)}" for num, name, folder, title in all_labs]
    try:
        inside = subprocess.run(["git", "-C", ROOT, "rev-parse", "--is-inside-work-tree"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        return inside and subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--"] + paths,
                                         stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def skeletons(all_labs):
    """labs/skeletons.sha256, as sha256sum writes it from labs/."""
    lines = []
    for num, name, folder, title in all_labs:
        rel = student_rel(folder, name)
        with open(os.path.join(ROOT, "labs", rel), "rb") as f:
            lines.append(f"{hashlib.sha256(f.read()).hexdigest()}  {rel}\n")
    return "".join(lines)


def normalised(src):
    """A skeleton's text with every comment and every white-space character outside a string or
    character literal removed, literals kept whole. grader/plan/started.c's started_normalise
    is the rule, which grades every student's file; docs-gen runs where nothing is built, so it
    says it once more, here only, for the skeletons alone, and tests/test_score.c holds what it
    writes (labs/skeletons.normalised.sha256) to the C."""
    out, i, n = bytearray(), 0, len(src)
    while i < n:
        c = src[i:i + 1]
        if src[i:i + 2] == b"//":
            while i < n and src[i:i + 1] != b"\n":
                i += 1
        elif src[i:i + 2] == b"/*":
            end = src.find(b"*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in (b'"', b"'"):
            out += c
            i += 1
            while i < n and src[i:i + 1] not in (c, b"\n"):
                if src[i:i + 1] == b"\\" and i + 1 < n:
                    out += src[i:i + 1]
                    i += 1
                out += src[i:i + 1]
                i += 1
            if i < n and src[i:i + 1] == c:
                out += c
                i += 1
        elif c in b" \t\n\r\v\f":
            i += 1
        else:
            out += c
            i += 1
    return bytes(out)


def skeletons_normalised(all_labs):
    """labs/skeletons.normalised.sha256: each skeleton's normalised text's SHA-256."""
    lines = []
    for num, name, folder, title in all_labs:
        rel = student_rel(folder, name)
        with open(os.path.join(ROOT, "labs", rel), "rb") as f:
            lines.append(f"{hashlib.sha256(normalised(f.read())).hexdigest()}  {rel}\n")
    return "".join(lines)


def slide(num, name, folder, title):
    """A deck to write for a lab that has none: its title and the three slides every deck has."""
    return f"""---
title: "Lab {num} — {title}"
subtitle: "TODO(author): the lab's idea in one line."
---

## The idea

- TODO(author): what the lab teaches (the lesson: `labs/{folder}/README.md`)

---

## Measure it

- TODO(author): the skeleton's limiter, and the counter that shows it

---

## Your turn

- edit `labs/{student_rel(folder, name)}`, then `make grade LAB={num}`
"""


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit("usage: grader/make/docs_gen.py [--check]")
    all_labs = labs()
    want = {"README.md": readme(read("README.md"), all_labs),
            "labs/workbook.ipynb": notebook(read("labs/workbook.ipynb"), all_labs)}
    committed = labs_as_committed(all_labs)
    if committed:
        want["labs/skeletons.sha256"] = skeletons(all_labs)
        want["labs/skeletons.normalised.sha256"] = skeletons_normalised(all_labs)
    for num, name, folder, title in all_labs:
        rel = f"slides/{folder}.md"
        if not os.path.exists(os.path.join(ROOT, rel)):
            want[rel] = slide(num, name, folder, title)
    stale = []
    for rel, text in want.items():
        path = os.path.join(ROOT, rel)
        old = read(rel) if os.path.exists(path) else None
        if old == text:
            continue
        stale.append(rel)
        if not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    n = len(all_labs)
    if check:
        if not committed:
            print("docs-gen: the skeletons in labs/ are not the workbook's committed ones here (edited, or "
                  "no git): labs/skeletons.sha256 and skeletons.normalised.sha256 are not checked")
        if stale:
            for rel in stale:
                print(f"FAIL docs-gen: {rel} is not what the lab folders make of it: run make docs-gen "
                      "(it writes only the derived parts) and commit the result")
            sys.exit(1)
        print(f"docs-gen: the README's table, the notebook's lab cells, the skeletons' hashes and the "
              f"slides match all {n} lab folders")
    else:
        print(f"docs-gen: {n} labs; " + (f"wrote {', '.join(stale)}" if stale else "nothing to change"))


if __name__ == "__main__":
    main()
