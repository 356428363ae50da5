#!/usr/bin/env python3
"""figures_selftest.py - tests/docs/figures.py must fail on a drifted figure in each kind of place.

    tests/docs/figures_selftest.py

Copies what figures.py reads (labs/, slides/, common/gpu_profiles.c, tests/gpu/results/,
tests/docs/, and every other file a line of tests/docs/figure-sources.tsv names) into a temporary folder, checks that
figures.py passes there as it does here, then plants one wrong figure at a time and checks that
figures.py fails and names the place:

- lesson prose: lab 09's warp tiles at "0.64 of cuBLAS" (its bench says 0.8830);
- a share in lesson prose: lab 09's L1 "61%" busy (ncu's recorded 86.80%);
- a table of a lesson: lab 04's one chain at full occupancy at 54.3 TFLOP/s (recorded: 58.4);
- the primer: its shortest time for 2^28 floats at 0.47 ms (derived: 0.512 ms);
- a slide: lab 06's padded tile at 0.90x (recorded: 0.8406), another row's ratio;
- a slide's table: lab 05's pageable copies at 9.4 and 17.7 GB/s (recorded: 7.1 and 11.7);
- the notebook: lab 05's reference at 23.3 ms (recorded: 22.91 ms);
- a comment: the H200 profile's pinned copies at 57.5 GB/s (recorded: 55.5);
- the source list: a line whose figure is gone from its file, and a figure with no line.

Each plant is undone before the next. Exit status 1 when a plant is not caught.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COPY = ["labs", "slides", "common/gpu_profiles.c", "tests/gpu/results", "tests/docs"]

PLANTS = [
    ("lesson", "labs/09-sgemm/README.md", "1.3x:\n0.88 of cuBLAS.", "1.3x:\n0.64 of cuBLAS.",
     "labs/09-sgemm/README.md:"),
    ("share", "labs/09-sgemm/README.md", "L1 is the limit (87%)", "L1 is the limit (61%)",
     "labs/09-sgemm/README.md:"),
    ("table", "labs/04-ilp/README.md", "| 1.178 | 58.4 TFLOP/s |", "| 1.178 | 54.3 TFLOP/s |",
     "labs/04-ilp/README.md:"),
    ("primer", "labs/PRIMER.md", "4.19 TB/s = 0.51 ms;", "4.19 TB/s = 0.47 ms;", "labs/PRIMER.md:"),
    ("ratio", "slides/06-transpose.md", "passes at 0.84x)", "passes at 0.90x)", "slides/06-transpose.md:"),
    ("slide", "slides/05-streams.md", "| pageable (`malloc`) | 7.1 GB/s | 11.7 GB/s |",
     "| pageable (`malloc`) | 9.4 GB/s | 17.7 GB/s |", "slides/05-streams.md:"),
    ("notebook", "labs/workbook.ipynb", "22.91 ms for the reference", "23.3 ms for the reference",
     "labs/workbook.ipynb:"),
    ("comment", "common/gpu_profiles.c", "55.5 GB/s to the device", "57.5 GB/s to the device",
     "common/gpu_profiles.c:"),
    ("stale line", "tests/docs/figure-sources.tsv", None,
     "labs/01-coalescing/README.md\tplanted {} line\t123.4 ms\tconstant: a figure no file has = 123.4\n",
     "tests/docs/figure-sources.tsv:"),
    ("no source", "labs/01-coalescing/README.md", None, "\nA planted figure: 12.5 ms.\n",
     "labs/01-coalescing/README.md:"),
]


def run(root):
    p = subprocess.run([sys.executable, os.path.join(root, "tests/docs/figures.py"), root],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    failures = 0
    with tempfile.TemporaryDirectory(prefix="figures-selftest-") as tmp:
        for rel in COPY:
            src, dst = os.path.join(ROOT, rel), os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, dst)
        with open(os.path.join(ROOT, "tests/docs/figure-sources.tsv"), encoding="utf-8") as f:
            named = set(re.findall(r"([\w./-]+):\d+:\d+", f.read()))
        for rel in sorted(named):  # every file a source line names (a grader constant too)
            src, dst = os.path.join(ROOT, rel), os.path.join(tmp, rel)
            if os.path.isfile(src) and not os.path.exists(dst):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
        for table in sorted(os.listdir(os.path.join(ROOT, "grader/labs"))):  # the pass marks, l2_multiple
            src = os.path.join(ROOT, "grader/labs", table, "table.c")
            if os.path.exists(src):
                os.makedirs(os.path.join(tmp, "grader/labs", table), exist_ok=True)
                shutil.copy2(src, os.path.join(tmp, "grader/labs", table, "table.c"))
        rc, out = run(tmp)
        if rc != 0:
            print("FAIL figures selftest: the untouched copy does not pass:\n" + out)
            return 1
        for kind, rel, old, new, named in PLANTS:
            path = os.path.join(tmp, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if old is None:
                planted = text + new
            elif old not in text:
                print("FAIL figures selftest (%s): %s no longer holds %r: update the plant" % (kind, rel, old))
                failures += 1
                continue
            else:
                planted = text.replace(old, new, 1)
            with open(path, "w", encoding="utf-8") as f:
                f.write(planted)
            rc, out = run(tmp)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            caught = [l for l in out.split("\n") if l.startswith("FAIL " + named)]
            if rc == 0 or not caught:
                print("FAIL figures selftest (%s): a drifted figure in %s was not caught" % (kind, rel))
                failures += 1
            else:
                print("figures selftest: %-10s caught: %s" % (kind, caught[0][5:][:110]))
    print("figures selftest: %d of %d planted drifts caught" % (len(PLANTS) - failures, len(PLANTS)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
