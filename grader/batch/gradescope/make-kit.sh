#!/usr/bin/env bash
# make-kit.sh - the Gradescope autograder folder and zip: make gradescope-kit [KIT=dir] [LAB=..]
#
# KIT/ gets setup.sh and run_autograder (at the top, where Gradescope wants them), kit.conf
# (LAB: the labs this assignment grades) and workbook/ (this checkout's tracked files:
# Makefile, grader, common, labs with the workbook's own skeletons, solutions, tests); KIT.zip is what to upload as the
# assignment's autograder. The solutions are inside: never give the zip to students.
set -euo pipefail
cd "$(dirname "$0")/../../.."
kit=${1:-build/gradescope}
rm -rf "$kit" "$kit.zip"
mkdir -p "$kit/workbook"
git ls-files -z -- Makefile README.md grader common labs solutions tests |
    tar --null -T - -cf - | tar -xf - -C "$kit/workbook"
# The skeletons are the workbook's own, whatever this checkout's labs/ holds now: a lab a
# student does not hand in is graded as the skeleton.
grader/batch/pristine_skeletons.sh "$kit/workbook/labs"
cp grader/batch/gradescope/setup.sh grader/batch/gradescope/run_autograder "$kit/"
chmod +x "$kit/setup.sh" "$kit/run_autograder"
printf 'LAB=%q\n' "${LAB:-}" >"$kit/kit.conf"
python3 - "$kit" <<'PY'
import os, sys, zipfile
kit = sys.argv[1]
with zipfile.ZipFile(kit + ".zip", "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, files in sorted(os.walk(kit)):
        for f in sorted(files):
            p = os.path.join(d, f)
            info = zipfile.ZipInfo.from_file(p, os.path.relpath(p, kit))
            with open(p, "rb") as fh:
                z.writestr(info, fh.read(), zipfile.ZIP_DEFLATED)
PY
echo "Gradescope autograder: $kit.zip (setup.sh, run_autograder, workbook/). It grades correctness"
echo "on the CPU emulator; speed is graded on a GPU. It holds the solutions: keep it from students."
