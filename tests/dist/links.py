#!/usr/bin/env python3
"""tests/dist/links.py - every relative link in what the student kit ships resolves in the kit.

    tests/dist/links.py KIT_DIR        (tests/dist/run.sh runs it on the unpacked kit)

Reads every Markdown file of the kit (the lessons, the slides, the READMEs of the workbook,
the grader and the kit's own prebuilt/ and solutions/) and every Markdown cell of its
notebooks, and checks each relative link, `[text](target)` or `<a href>` / `<img src>`: the
target, taken from the linking file's folder, is a file or folder inside the kit. The kit
leaves the reference solutions and ladder rungs (solutions/NN-name/) out, and make-dist.sh
points every link to them at solutions/README.md, which says where they are: a link that still
leads into solutions/NN-name/ is broken like any other.
Slides name their pictures from slides/ or from the kit's top (pandoc's --resource-path).
Prints one line per broken link and a count; exits 1 if any.
"""
import json
import os
import re
import sys

kit = os.path.realpath(sys.argv[1])
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"")
bad, checked = [], 0


def texts():
    for d, dirs, files in os.walk(kit):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, kit)
            if f.endswith(".md"):
                yield rel, open(p, encoding="utf-8", errors="replace").read()
            elif f.endswith(".ipynb"):
                try:
                    cells = json.load(open(p, encoding="utf-8"))["cells"]
                except (ValueError, KeyError):
                    bad.append("%s: not a notebook that parses" % rel)
                    continue
                yield rel, "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown")


for rel, text in texts():
    base = os.path.dirname(os.path.join(kit, rel))
    in_code = False
    for i, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for m in LINK.finditer(line):
            target = (m.group(1) or m.group(2)).split("#")[0].split("?")[0]
            if not target or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("/"):
                continue  # an anchor in the page, a URL, or an absolute path (not a link into the kit)
            checked += 1
            path = os.path.realpath(os.path.join(base, target))
            if rel.startswith("slides/") and not os.path.exists(path):
                path = os.path.realpath(os.path.join(kit, target.lstrip("./")))
            inside = path == kit or path.startswith(kit + os.sep)
            where = os.path.relpath(path, kit)
            if inside and os.path.exists(path):
                continue
            if inside and re.match(r"solutions/\d\d-", where):
                bad.append("%s:%d: links to %s, a reference source the kit leaves out (make-dist.sh "
                           "points such links at solutions/README.md)" % (rel, i, target))
                continue
            bad.append("%s:%d: links to %s, which %s" % (rel, i, target,
                       "is outside the kit" if not inside else "the kit does not ship"))
for b in bad:
    print("FAIL " + b)
print("links in the kit: %d checked, %d broken" % (checked, len(bad)))
sys.exit(1 if bad else 0)
