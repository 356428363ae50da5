"""check_notebook.py - execute labs/workbook.ipynb headless and check what it printed.

    python check_notebook.py CHECKOUT OUTDIR LABS      (LABS: "01,06" or "all"; run.sh sets
                                                       up the venv and the environment)

Four runs, each a fresh Python kernel (nbclient), every cell run even after an error
(allow_errors) so that one report lists every problem:

  fresh folder    setup and doctor only, in an empty folder, with WORKBOOK_URL pointed at
                  CHECKOUT: the clone path, with no network
  inside          the whole notebook as opened from CHECKOUT/labs (the copy in place, its
                  build/ reused), keeping the grade cells of LABS only
  must fail       a notebook with a cell that raises and a grade cell that grades no lab,
                  and the setup cell cloning from a folder that is not there: the checks
                  below must report all three, or they cannot fail

Checks: the committed notebook is valid, holds no outputs and has one grade cell per lab of labs/, in
order, each section naming a lab file that exists; no cell raised; the setup cell found the
workbook; the doctor cell ran (its "CUDA toolkit" line); every grade cell printed its lab's
heading and a `Score: N/M` line. Exit 0 when all hold, 1 otherwise.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

CELL_TIMEOUT_S = 1800   # one lab's grade, built from cold, under the emulator
GRADE_RE = re.compile(r"^!make grade LAB=(\d\d)$")
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
URL_RE = re.compile(r'^WORKBOOK_URL = "[^"\n]*"', re.M)


def text_of(cell):
    """Everything the cell printed (streams, results, tracebacks), as one string."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
        elif out.output_type == "error":
            parts.append("%s: %s" % (out.ename, out.evalue))
    # `!cmd` runs in a terminal: colours (ANSI escapes) and CR LF line ends
    return ANSI_RE.sub("", "".join(parts)).replace("\r\n", "\n")


def grade_lab(cell):
    """The lab number a grade cell grades, or None for any other cell."""
    m = GRADE_RE.match(cell.source.strip()) if cell.cell_type == "code" else None
    return m.group(1) if m else None


def cell_seconds(cell):
    t = cell.metadata.get("execution", {})
    start, end = t.get("iopub.execute_input"), t.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    from datetime import datetime
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(end) - parse(start)).total_seconds()


def check_committed(nb, checkout):
    """The notebook as committed: no outputs, one grade cell per lab in labs/, in order."""
    problems = []
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as e:
        problems.append("labs/workbook.ipynb is not a valid notebook (nbformat 4): %s" % str(e).splitlines()[0])
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            problems.append("cell %s holds outputs or an execution count: the notebook must be "
                            "committed clean (clear all outputs and save)" % cell.get("id"))
    labs = sorted(os.path.basename(d) for d in glob.glob(os.path.join(checkout, "labs", "[0-9][0-9]-*"))
                  if os.path.isdir(d))
    graded = [grade_lab(c) for c in nb.cells if grade_lab(c)]
    if graded != [d[:2] for d in labs]:
        problems.append("grade cells are for labs %s, expected one per lab of labs/, in order: %s"
                        % (",".join(graded) or "none", ",".join(d[:2] for d in labs)))
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for d in labs:
        path = "labs/%s/%s.cu" % (d, d[3:])
        if "`%s`" % path not in markdown:
            problems.append("no section names the file to edit of lab %s, `%s`" % (d, path))
        elif not os.path.isfile(os.path.join(checkout, path)):
            problems.append("the notebook names %s, which is not in the checkout" % path)
    setup = [c for c in nb.cells if c.get("id") == "setup"]
    if len(setup) != 1 or len(URL_RE.findall(setup[0].source)) != 1:
        problems.append('expected one code cell with id "setup" that sets WORKBOOK_URL = "..." '
                        "at the start of a line; found %d such cell(s)" % len(setup))
    return problems


def prepare(nb, url, keep):
    """A copy of `nb` with WORKBOOK_URL set to `url`, keeping the cells `keep(cell)` accepts."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = URL_RE.sub(lambda m: "WORKBOOK_URL = " + json.dumps(url), cell.source)
    nb.cells = [c for c in nb.cells if keep(c)]
    return nb


def execute(nb, cwd):
    start = time.monotonic()
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, allow_errors=True, kernel_name="python3",
                   resources={"metadata": {"path": cwd}}).execute()
    return time.monotonic() - start


def check_executed(nb, setup_says):
    """Problems in an executed notebook; and one line per grade cell for the report."""
    problems, lines = [], []
    ids = [c.get("id") for c in nb.cells]
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cid, out = cell.get("id"), text_of(cell)
        for err in (o for o in cell.outputs if o.output_type == "error"):
            problems.append("cell %s raised %s: %s" % (cid, err.ename, err.evalue))
        if cell.execution_count is None:
            problems.append("cell %s did not run" % cid)
        lab = grade_lab(cell)
        if lab:
            # a GPU's score, or with none (the CPU emulator) the line that says there is none
            score = re.findall(r"^Score: (?:\d+/\d+|speed not graded \(no GPU\), so no score.*)$", out, re.M)
            heading = re.search(r"^== %s [a-z]+: " % lab, out, re.M)
            if not score or not heading:
                problems.append("grade cell %s (make grade LAB=%s): expected the lab's heading "
                                "'== %s ...' and a 'Score: N/M' line (with no GPU, 'Score: speed not graded ...'); it printed:\n%s"
                                % (cid, lab, lab, "\n".join("    " + l for l in out.strip().splitlines()[-15:])))
            else:
                lines.append("lab %s: %s (%.0f s)" % (lab, score[-1], cell_seconds(cell)))
    for cid, expect, what in (("setup", setup_says, "the setup cell found no workbook"),
                              ("doctor", r"CUDA toolkit", "the doctor cell printed no 'CUDA toolkit' line")):
        if cid not in ids:
            problems.append("the notebook has no cell with id %r" % cid)
        elif not re.search(expect, text_of(nb.cells[ids.index(cid)])):
            problems.append("%s (expected /%s/); it printed:\n    %s"
                            % (what, expect, text_of(nb.cells[ids.index(cid)]).strip()[-600:]))
    return problems, lines


def main():
    checkout, outdir, wanted = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    nb = nbformat.read(os.path.join(checkout, "labs", "workbook.ipynb"), as_version=4)
    all_labs = [grade_lab(c) for c in nb.cells if grade_lab(c)]
    labs = all_labs if wanted == "all" else wanted.split(",")
    unknown = [l for l in labs if l not in all_labs]
    if unknown:
        print("FAIL notebook: NOTEBOOK_LABS names %s; expected 'all' or numbers among %s"
              % (",".join(unknown), ",".join(all_labs)))
        return 1
    os.makedirs(outdir, exist_ok=True)
    failed, ran = 0, 0

    def report(name, problems, seconds, lines=()):
        nonlocal failed, ran
        ran += 1
        if problems:
            failed += 1
            print("FAIL notebook, %s (%.0f s):" % (name, seconds))
            for p in problems:
                print("  - " + p)
        else:
            print("ok   notebook, %s (%.0f s)%s" % (name, seconds, "".join("\n       " + l for l in lines)))

    report("as committed", check_committed(nb, checkout), 0)

    # The clone path: an empty folder, the URL pointed at this checkout (its committed HEAD).
    # A student kit (make dist) is no git repository: nothing there to clone from.
    if shutil.which("git") and subprocess.run(
            ["git", "-C", checkout, "rev-parse", "--verify", "-q", "HEAD"], capture_output=True).returncode == 0:
        fresh = tempfile.mkdtemp(prefix="workbook-nb-")
        try:
            run = prepare(nb, checkout, lambda c: c.get("id") in ("setup", "doctor"))
            secs = execute(run, fresh)
            problems, _ = check_executed(run, r"Cloning .*\nThe workbook is in .*cuda-workbook")
            if not os.path.isfile(os.path.join(fresh, "cuda-workbook", "Makefile")):
                problems.append("expected a clone with a Makefile in %s/cuda-workbook; there is none" % fresh)
            report("fresh folder (cloned from %s)" % checkout, problems, secs)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
    else:
        print("skipped: notebook, fresh folder: %s is not a git checkout with a commit (a student "
              "kit?), so there is nothing to clone from; the other runs go on" % checkout)

    # The copy in place, opened from labs/, the chosen labs graded.
    run = prepare(nb, checkout, lambda c: grade_lab(c) in (None, *labs))
    secs = execute(run, os.path.join(checkout, "labs"))
    nbformat.write(run, os.path.join(outdir, "workbook.executed.ipynb"))
    problems, lines = check_executed(run, r"inside a copy of the workbook; using it: " + re.escape(checkout))
    report("inside the checkout, labs %s (executed copy: %s/workbook.executed.ipynb)"
           % (",".join(labs), outdir), problems, secs, lines)

    # These checks must be able to fail: a cell that raises, a grade that prints no score.
    bad = prepare(nb, checkout, lambda c: c.get("id") in ("setup", "doctor"))
    bad.cells.append(nbformat.v4.new_code_cell('raise RuntimeError("planted")', id="planted-error"))
    bad.cells.append(nbformat.v4.new_code_cell("!make grade LAB=99", id="planted-grade"))
    secs = execute(bad, os.path.join(checkout, "labs"))
    found, _ = check_executed(bad, r"inside a copy of the workbook")
    missed = [what for what, pattern in (("the raising cell", r"planted-error raised RuntimeError: planted"),
                                         ("the grade with no score", r"grade cell planted-grade .*Score: N/M"))
              if not any(re.search(pattern, p) for p in found)]
    # ... and a clone that fails must stop the setup cell with a message.
    fresh = tempfile.mkdtemp(prefix="workbook-nb-")
    try:
        nowhere = os.path.join(fresh, "no-such-repository")
        bad = prepare(nb, nowhere, lambda c: c.get("id") == "setup")
        secs += execute(bad, fresh)
        found_clone, _ = check_executed(bad, r"The workbook is in")
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    if not any(re.search(r"setup raised RuntimeError: git clone .*no-such-repository failed", p) for p in found_clone):
        missed.append("the failed clone")
        found += found_clone
    report("planted errors are caught", ["the checks missed %s; they reported: %s" % (m, found or "nothing")
                                         for m in missed], secs)

    print("notebook: %s" % ("all passed" if not failed else "%d of %d checks failed" % (failed, ran)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
