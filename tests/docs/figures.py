#!/usr/bin/env python3
"""figures.py - every figure the learner reads, tied to ONE recorded source and held to it.

    tests/docs/figures.py [ROOT]          check (ROOT: the checkout to read; default: this one)
    tests/docs/figures.py --propose [ROOT]  print a source line for each figure that has none
                                            (a proposal to read and paste, never written alone)

Where figures are read (the four kinds of place):
- lessons:  labs/NN-name/README.md, labs/PRIMER.md, labs/VERIFYING.md
- slides:   slides/NN-name.md
- notebook: every cell of labs/workbook.ipynb
- comments: the comments of the files the learner edits (labs/NN-name/*.cu) and of
            common/gpu_profiles.c

What a figure is: a number with a unit of time, rate, ratio, share, cycles or ways (ms, us,
µs, ns, microseconds, GB/s, TB/s, GFLOP/s, TFLOP/s, cycles, "5-way", "2.13x", "2.5 times",
"73%"), or a bare ratio written with two or more decimals ("0.883 of cuBLAS", a table's x_ref
column). Sizes and counts are not figures here, nor a number right after "=".

Where a figure's source is named: tests/docs/figure-sources.tsv, one line a figure, four
tab-separated fields: the file, the figure's context (the words around it on its line, each
number written as #: how the line finds its figure again after an edit elsewhere), the figure
as written, and its source, one of:
- FILE:LINE:K            the K-th number of line LINE of a recorded file (tests/gpu/results/*.txt,
                         labs/NN-name/bench-*.tsv), in the figure's unit; where the cell writes
                         its own unit (ms against us, GB/s against TB/s) it is converted
- = EXPR                 a derivation: arithmetic on cells written [FILE:LINE:K], on the GPU
                         profiles' named constants written [profile.field] (common/gpu_profiles.c:
                         [h200.sm_count]; [h200.dram_gbs] and [h200.fp32_gflops] are what
                         `make profiles` derives), and on plain numbers
- WHY = VALUE            a figure no file of the workbook records (a cited paper's figure, a
                         datasheet's, a constant of the code): WHY says which, VALUE is the
                         figure's value as cited, so a changed figure no longer matches it
The figure matches when its source's value rounds to it at the precision it is written
(0.5652 is 0.57, never 0.56). A figure with no source line, a source that does not round to it,
a cell that does not exist or has a unit of another kind, and a source line whose figure is gone
from its file each print one FAIL line; the exit status is 1 when any failed.
tests/docs/figures_mutation.py shifts every figure by +-5% and +-7% and checks that each shift
fails here; tests/docs/figures_selftest.py plants drifts in each kind of place.
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = "tests/docs/figure-sources.tsv"

NUM = r"(?<![\w.\-/^,=])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
UNITS = r"ms|µs|us|ns|GB/s|TB/s|GFLOP/s|TFLOP/s|TFLOPS|microseconds|milliseconds|nanoseconds|cycles"
FIGURE = re.compile(NUM + r"(?:\s?(" + UNITS + r")\b|(x)(?![\w\d])(?! ?\d)| (times)\b|\s?(%)(?!\w)|(-way)\b)")
BARE = re.compile(r"(?<![\w.\-/^])(0\.\d{2,6})(?![\w.%])")
KINDS = {"ms": "time", "us": "time", "µs": "time", "ns": "time", "microseconds": "time",
         "milliseconds": "time", "nanoseconds": "time", "GB/s": "rate", "TB/s": "rate",
         "GFLOP/s": "rate", "TFLOP/s": "rate", "TFLOPS": "rate", "x": "ratio", "times": "ratio",
         "": "ratio", "%": "percent", "cycles": "cycles", "-way": "ways"}
# a unit's size in its kind's base (ms, GB/s)
SCALE = {"ms": 1.0, "milliseconds": 1.0, "us": 1e-3, "µs": 1e-3, "microseconds": 1e-3, "ns": 1e-6,
         "nanoseconds": 1e-6, "GB/s": 1.0, "GFLOP/s": 1.0, "TB/s": 1e3, "TFLOP/s": 1e3, "TFLOPS": 1e3}
CELL_UNITS = re.compile(r"\s?(ms|µs|us|ns|GB/s|TB/s|GFLOP/s|TFLOP/s|TFLOPS|cycles|x|%)(?![\w/])")
CELL_NUM = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def lab_of(path):
    m = re.search(r"(?:labs|slides)/(\d\d)-", path)
    return m.group(1) if m else None


# ---------------------------------------------------------------- the figures of a text
def mask(s):
    """A figure's context: its neighbours' numbers written as #, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"\d[\d.,]*", "#", s)).strip()


def figures(text):
    """Every figure of text: dicts with line, start/end (offsets in text), shown, num, value,
    tol (half a unit of its last digit), unit and ctx (its context)."""
    out = []
    offset = 0
    for i, line in enumerate(text.split("\n"), 1):
        found = []
        for m in FIGURE.finditer(line):
            unit = next(g for g in m.groups()[1:] if g is not None)
            found.append((m.start(1), m.end(1), m.end(0), m.group(0).strip(), m.group(1), unit))
        seen = {f[0] for f in found}
        for m in BARE.finditer(line):
            if m.start(1) not in seen:
                found.append((m.start(1), m.end(1), m.end(1), m.group(1), m.group(1), ""))
        for s, e, e0, shown, num, unit in sorted(found):
            decimals = len(num.split(".")[1]) if "." in num else 0
            ctx = mask(line[max(0, s - 28):s]) + " {} " + mask(line[e0:e0 + 14])
            out.append({"line": i, "start": offset + s, "end": offset + e, "shown": shown, "num": num,
                        "value": float(num.replace(",", "")), "tol": 0.5 * 10 ** -decimals,
                        "unit": unit, "ctx": ctx})
        offset += len(line) + 1
    return out


def comments(src):
    """The comments of a C or CUDA file, with their line breaks kept (so the lines count)."""
    out = []
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|[^/\"]+|/", src, re.S):
        t = m.group(0)
        out.append(t if t.startswith("/*") or t.startswith("//") else re.sub(r"[^\n]", " ", t))
    return "".join(out)


def places(root="."):
    """(kind, path, lab, text) of every place figures are read in; the notebook is one text,
    its cells joined (a cell's figures are found by their context, not the cell's number)."""
    j = lambda p: os.path.join(root, p)
    out = []
    lessons = sorted(glob.glob(j("labs/[0-9][0-9]-*/README.md")))
    for path in lessons + [j(p) for p in ("labs/PRIMER.md", "labs/VERIFYING.md") if os.path.exists(j(p))]:
        out.append(("lesson", os.path.relpath(path, root), lab_of(path), read(path)))
    for path in sorted(glob.glob(j("slides/[0-9][0-9]-*.md"))):
        out.append(("slide", os.path.relpath(path, root), lab_of(path), read(path)))
    nb = j("labs/workbook.ipynb")
    if os.path.exists(nb):
        cells = ["".join(c["source"]) for c in json.loads(read(nb))["cells"]]
        out.append(("notebook", "labs/workbook.ipynb", None, "\n".join(cells)))
    for path in sorted(glob.glob(j("labs/[0-9][0-9]-*/*.cu"))) + [j("common/gpu_profiles.c")]:
        if os.path.exists(path):
            out.append(("comment", os.path.relpath(path, root), lab_of(path), comments(read(path))))
    return out


# ---------------------------------------------------------------- the sources
_files = {}


def cells(path, root="."):
    """The numbers of each line of a recorded file: {line: [(value, unit or "")]}."""
    key = (root, path)
    if key not in _files:
        rows = {}
        full = os.path.join(root, path)
        if os.path.exists(full):
            lines = read(full).split("\n")
            head = lines[0].split("\t") if path.endswith(".tsv") else []
            for n, line in enumerate(lines, 1):
                if head and n > 1 and line.count("\t") == len(head) - 1:
                    rows[n] = tsv_row(head, line.split("\t"))
                    continue
                line = re.sub(r"(?<=\d),(?=\d{3})", "", line)
                row = []
                for m in CELL_NUM.finditer(line):
                    u = CELL_UNITS.match(line, m.end())
                    row.append((float(m.group(0)), u.group(1) if u else "", line.strip()))
                rows[n] = row
        _files[key] = rows
    return _files[key]


def profiles(root="."):
    """{"key.field": value} of common/gpu_profiles.c's table, and each GPU's dram_gbs and
    fp32_gflops as `make profiles` derives them (memory clock x 2 x bus width; 2 x lanes x SMs
    x SM clock, 64 lanes an SM on cc 7.x and 8.0, 128 on the others)."""
    key = (root, "profiles")
    if key in _files:
        return _files[key]
    out = {}
    path = os.path.join(root, "common/gpu_profiles.c")
    src = re.sub(r"/\*.*?\*/|//[^\n]*", " ", read(path), flags=re.S) if os.path.exists(path) else ""
    sizes = {"KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3}
    for m in re.finditer(r"\{\.key = \"([^\"]+)\",(.*?)\}", src, re.S):
        f = {}
        for name, val in re.findall(r"\.(\w+) = ([^,}]+)", m.group(2)):
            try:
                f[name] = float(eval(val, {"__builtins__": {}}, sizes))
            except Exception:
                continue
            out["%s.%s" % (m.group(1), name)] = f[name]
        try:
            lanes = 64 if f["cc_major"] < 8 or (f["cc_major"], f["cc_minor"]) == (8, 0) else 128
            out[m.group(1) + ".dram_gbs"] = f["mem_clock_khz"] * 1e3 * 2 * f["mem_bus_bits"] / 8 / 1e9
            out[m.group(1) + ".fp32_gflops"] = 2 * lanes * f["sm_count"] * f["sm_clock_khz"] * 1e3 / 1e9
        except KeyError:
            pass
    _files[key] = out
    return out


def tsv_row(head, fields):
    """The numbers of a bench table's row, each with its column's unit: ms, the rate's unit,
    x for x_ref and x_ceil; "-" (matching no figure) for the numbers of the other columns."""
    row, unit = [], dict(zip(head, fields)).get("unit", "")
    for name, field in zip(head, fields):
        for m in CELL_NUM.finditer(field):
            u = {"ms": "ms", "rate": unit, "x_ref": "x", "x_ceil": "x"}.get(name, "-")
            row.append((float(m.group(0)), u, "\t".join(fields)))
    return row


REF = re.compile(r"^([\w./-]+):(\d+):(\d+)$")


def cell(ref, root="."):
    """(value, unit, row text) of FILE:LINE:K, or a string saying why there is none."""
    m = REF.match(ref.strip())
    if not m:
        return "not FILE:LINE:K"
    path, line, k = m.group(1), int(m.group(2)), int(m.group(3))
    if not os.path.exists(os.path.join(root, path)):
        return "no file %s" % path
    row = cells(path, root).get(line)
    if row is None:
        return "%s has no line %d" % (path, line)
    if not 1 <= k <= len(row):
        return "%s:%d has %d numbers, not a %d-th" % (path, line, len(row), k)
    return row[k - 1]


def evaluate(source, root="."):
    """(value, unit of the value or "", what it is) of a source field, or (None, why, "")."""
    source = source.strip()
    if source.startswith("="):
        expr, why = source[1:], []

        def sub(m):
            name = m.group(1)
            if REF.match(name):
                c = cell(name, root)
                if isinstance(c, str):
                    why.append(c)
                    return "0"
                return repr(c[0])
            if name in profiles(root):
                return repr(profiles(root)[name])
            why.append("no profile constant %s" % name)
            return "0"
        expr = re.sub(r"\[([^\]]+)\]", sub, expr)
        if why:
            return None, "; ".join(why), ""
        if re.search(r"[^\d\s.e+\-*/()]", expr):
            return None, "not arithmetic: %s" % expr, ""
        try:
            return float(eval(expr, {"__builtins__": {}})), "", source
        except Exception as e:  # noqa: BLE001 - a malformed line is reported, not raised
            return None, "does not evaluate (%s)" % e, ""
    m = REF.match(source)
    if m:
        c = cell(source, root)
        if isinstance(c, str):
            return None, c, ""
        return c[0], c[1], c[2]
    m = re.match(r"^([A-Za-z][^\[]*?)=\s*([-+]?\d[\d.e+\-]*)\s*$", source, re.S)
    if m:
        return float(m.group(2)), "", source
    return None, "a source is FILE:LINE:K, = EXPR or WHY = VALUE", ""


def agrees(fig, value, unit):
    """Whether value (in unit; "" is the figure's own) rounds to the figure as written."""
    fu = fig["unit"]
    if unit == "-":
        return False, "its source is not a figure (a size or a count)"
    if fu == "" and unit != "%":
        unit = ""  # a bare figure (a table's cell) is written in its column's unit
    if unit == "x" and fu not in ("x", "times"):
        return False, "its source is a ratio, the figure in %s" % fu
    if unit and unit not in ("x", "%"):
        if fu not in SCALE or KINDS[fu] != KINDS.get(unit):
            return False, "its source is in %s, the figure in %s" % (unit, fu or "no unit")
        value = value * SCALE[unit] / SCALE[fu]
    if unit == "%" and fu != "%":
        return False, "its source is a percentage"
    if unit == "%":
        unit = ""
    ok = abs(value - fig["value"]) <= fig["tol"] * (1 + 1e-9) + 1e-12
    return ok, "" if ok else "its source says %.6g" % value


# ---------------------------------------------------------------- the table
def load(root="."):
    """[(n, path, ctx, shown, source)] of tests/docs/figure-sources.tsv, and its FAIL lines."""
    rows, bad = [], []
    path = os.path.join(root, SOURCES)
    if not os.path.exists(path):
        return rows, ["FAIL %s: missing" % SOURCES]
    for n, line in enumerate(read(path).split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 4 or not all(x.strip() for x in f):
            bad.append("FAIL %s:%d: wants four tab-separated fields: file, context, figure, source" % (SOURCES, n))
            continue
        rows.append((n, f[0], f[1], f[2], f[3]))
    return rows, bad


def assign(place_figs, rows):
    """Pair each figure with its source line: same file, same context; where a context repeats,
    the figures and the lines are paired in order. Returns ({figure index: row}, unused rows)."""
    by = {}
    for r in rows:
        by.setdefault((r[1], r[2]), []).append(r)
    out, used = {}, set()
    for path, figs in place_figs.items():
        seen = {}
        for i, fig in enumerate(figs):
            key = (path, fig["ctx"])
            k = seen.get(key, 0)
            seen[key] = k + 1
            cands = by.get(key, [])
            if k < len(cands):
                out[(path, i)] = cands[k]
                used.add(cands[k][0])
    return out, [r for r in rows if r[0] not in used]


def check_figure(fig, row, root="."):
    """None when the figure agrees with its source line, else why not."""
    value, unit, what = evaluate(row[4], root)
    if value is None:
        return "its source %s: %s" % (row[4], unit)
    ok, why = agrees(fig, value, unit)
    if ok:
        return None
    return "%s (%s:%d names %s%s)" % (why, SOURCES, row[0], row[4].strip(),
                                      ": " + what[:90] if what and what != row[4].strip() else "")


def check_place(root, path, kind, text, rows):
    """FAIL lines of one place's figures against their source lines (the mutation run's check:
    a source line of this place left without its figure counts too)."""
    figs = figures(text)
    pairs, unused = assign({path: figs}, [r for r in rows if r[1] == path])
    fails = []
    for i, fig in enumerate(figs):
        row = pairs.get((path, i))
        if row is None:
            fails.append("FAIL %s:%d (%s): \"%s\" names no source in %s (context: %s)"
                         % (path, fig["line"], kind, fig["shown"], SOURCES, fig["ctx"]))
            continue
        why = check_figure(fig, row, root)
        if why:
            fails.append("FAIL %s:%d (%s): \"%s\" %s" % (path, fig["line"], kind, fig["shown"], why))
    for r in unused:
        fails.append("FAIL %s:%d: names \"%s\" of %s, which %s no longer has there (remove or update the line)"
                     % (SOURCES, r[0], r[3], r[1], r[1]))
    return fails


def check(root=".", texts=None):
    """FAIL lines of every place; texts: {path: text} replacing a place's text (the mutation
    run's plants). Returns (fails, counts, figures by place)."""
    rows, fails = load(root)
    place_figs, kinds = {}, {}
    for kind, path, lab, text in places(root):
        if texts and path in texts:
            text = texts[path]
        place_figs[path] = figures(text)
        kinds[path] = kind
    pairs, unused = assign(place_figs, rows)
    counts = {"lesson": 0, "slide": 0, "notebook": 0, "comment": 0}
    for path, figs in place_figs.items():
        for i, fig in enumerate(figs):
            counts[kinds[path]] += 1
            row = pairs.get((path, i))
            if row is None:
                fails.append((path, i, "FAIL %s:%d (%s): \"%s\" names no source in %s (context: %s)"
                              % (path, fig["line"], kinds[path], fig["shown"], SOURCES, fig["ctx"])))
                continue
            why = check_figure(fig, row, root)
            if why:
                fails.append((path, i, "FAIL %s:%d (%s): \"%s\" %s" % (path, fig["line"], kinds[path], fig["shown"], why)))
    for r in unused:
        fails.append((None, None, "FAIL %s:%d: names \"%s\" of %s, which %s no longer has there (remove or update the line)"
                      % (SOURCES, r[0], r[3], r[1], r[1])))
    return fails, counts, place_figs


# ---------------------------------------------------------------- proposals
def named_files(text, lab, root):
    files = []
    for m in re.finditer(r"tests/gpu/results/[\w.\-]+\.txt|labs/\d\d-[\w-]+/bench-[\w-]+\.tsv", text):
        if os.path.exists(os.path.join(root, m.group(0))) and m.group(0) not in files:
            files.append(m.group(0))
    if lab:
        files = sorted(glob.glob(os.path.join(root, "labs/%s-*/bench-*.tsv" % lab))) + files
        files = [os.path.relpath(f, root) if os.path.isabs(f) else f for f in files]
    return list(dict.fromkeys(files))


def find_cell(fig, f, root, near=True):
    """The first cell of file f that rounds to the figure, as a source field, or None. A cell
    with no unit of its own counts only in a file named next to the figure (near) or in a bench
    table's typed columns; "-way" and cycles only in a cell that writes that unit; a lab's
    table.c only at its pass mark."""
    fu = fig["unit"]
    for ln, row in sorted(cells(f, root).items()):
        if f.endswith("table.c") and (".threshold" not in row[0][2] or fu not in ("x", "")) if row else True:
            continue
        if fu in ("-way",):
            continue
        for k, (v, u, _t) in enumerate(row, 1):
            digits = len(fig["num"].replace(",", "").replace(".", "").lstrip("0"))
            if not (u or near or f.endswith("table.c") or digits >= 3):
                continue
            ref = "%s:%d:%d" % (f, ln, k)
            if u == "-" or (fu in ("x", "times") and u not in ("", "x")):
                continue
            if fu == "%":
                if u == "%" and agrees(fig, v, "%")[0]:
                    return ref
                if u in ("", "x") and near and agrees(fig, 100 * v, "")[0]:
                    return "= 100 * [%s]" % ref
                continue
            if u == "%":
                continue
            if agrees(fig, v, u)[0]:
                return ref
            if not u and fu in SCALE:
                for scale, expr in ((1e3, "1000 * "), (1e-3, "0.001 * ")):
                    if agrees(fig, v * scale, "")[0]:
                        return "= %s[%s]" % (expr, ref)
    return None


def propose(root="."):
    """Print a source line for every figure without one: the one cell of the files its place
    names that rounds to it (the closest named file first); several or none: a line to fill in."""
    rows, _ = load(root)
    place_figs = {path: figures(text) for kind, path, lab, text in places(root)}
    pairs, _ = assign(place_figs, rows)
    everything = sorted(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, "tests/gpu/results/*.txt")))
    for kind, path, lab, text in places(root):
        lines = text.split("\n")
        for i, fig in enumerate(place_figs[path]):
            if (path, i) in pairs:
                continue
            flab = lab
            if flab is None:
                heads = [re.match(r"## Lab (\d\d)\b", l) for l in lines[:fig["line"]]]
                heads = [h.group(1) for h in heads if h]
                flab = heads[-1] if heads else None
            files = named_files(text, flab, root)
            if flab:
                files += [os.path.relpath(f, root) for f in glob.glob(os.path.join(root, "grader/labs/%s-*/table.c" % flab))]
                for lp in glob.glob(os.path.join(root, "labs/%s-*/README.md" % flab)):
                    files += [f for f in named_files(read(lp), None, root) if f not in files]
            near = named_files("\n".join(lines[max(0, fig["line"] - 4):fig["line"] + 2]), None, root)
            found = None
            for key, v in sorted(profiles(root).items()):
                if fig["unit"] in SCALE and (key.endswith("_gbs") or key.endswith("_gflops")):
                    scale = 1.0 / SCALE[fig["unit"]]
                    if agrees(fig, v * scale, "")[0]:
                        found = "= [%s]%s" % (key, " / %g" % (1 / scale) if scale != 1 else "")
                        break
            for f in ([] if found else near + [f for f in files if f not in near]):
                found = find_cell(fig, f, root, f in near)
                if found:
                    break
            print("%s\t%s\t%s\t%s" % (path, fig["ctx"], fig["shown"], found or "TODO"))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(HERE, "..", ".."))
    if "--propose" in argv:
        propose(root)
        return 0
    fails, counts, _ = check(root)
    for f in fails:
        print(f[2])
    print("figures: %s, each against the one source %s names; %d wrong" % (
        ", ".join("%d in %ss" % (v, k) for k, v in counts.items()), SOURCES, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
