#!/usr/bin/env python3
"""figures.py - every measured figure the learner reads, held to a recorded results file.

    tests/docs/figures.py [ROOT]     (ROOT: the checkout to read; default: the one it lives in)

Where figures are read (the four kinds of place):
- lessons:  labs/NN-name/README.md, labs/PRIMER.md, labs/VERIFYING.md
- slides:   slides/NN-name.md
- notebook: every cell of labs/workbook.ipynb (a cell under "## Lab NN" belongs to lab NN)
- comments: the comments of the files the learner edits (labs/NN-name/*.cu) and of
            common/gpu_profiles.c

What a figure is: a number with a unit of time, rate, ratio or share (ms, us, µs, ns, GB/s,
TB/s, GFLOP/s, TFLOP/s, "2.13x", "2.5 times", "73%"), or a bare ratio written with two or more
decimals ("0.883 of cuBLAS", a table's x_ref column). Sizes and counts are not figures here, nor
a number right after "=" (an option's value, a drawing's width=95%).

Where a figure may come from (its lab's sources):
- the lab's recorded bench, labs/NN-name/bench-*.tsv: its values, the differences of two of its
  times ("1.5 ms slower"), and for a figure written as a speed-up ("2.55x", "2.55 times") the
  ratio of two of its times or rates; a bare fraction must be one of the bench's own values;
- every tests/gpu/results/*.txt that the lab's lesson or slide deck names (a link or a path),
  or, for the primer, VERIFYING.md and common/gpu_profiles.c, that the file itself names;
- common/gpu_profiles.c: the values of its table (not its comments, which are checked like
  any other), and the DRAM bandwidth and FP32 rate `make profiles` derives from them.
A figure matches a source when the source's value rounds to it at the precision it is written
(0.5652 is 0.57, never 0.56), in the same unit or a thousand times larger or smaller (TFLOP/s
against GFLOP/s, us against ms); a share when a source holds it as a percentage (ncu's 86.80),
as a fraction (0.7260 of the ceiling), or as a change (a ratio of 1.27: "27% slower").

A figure with no recorded source must be listed, with why, in tests/docs/figures-unrecorded.tsv
(path, figure as written, why: arithmetic on recorded figures, a datasheet value, a hardware
constant ...); a listed figure that no longer appears in its file is a failure too, so the list
cannot go stale. Each failure prints one FAIL line; the exit status is 1 when any failed.
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
os.chdir(ROOT)
UNRECORDED = "tests/docs/figures-unrecorded.tsv"

NUM = r"(?<![\w.\-/^,=])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
FIGURE = re.compile(NUM + r"(?:\s?(ms|µs|us|ns|GB/s|TB/s|GFLOP/s|TFLOP/s|TFLOPS)\b|(x)(?![\w\d])(?! ?\d)| (times)\b|\s?(%)(?!\w))")
BARE = re.compile(r"(?<![\w.\-/^])(0\.\d{2,6})(?![\w.%])")
KINDS = {"ms": "time", "us": "time", "µs": "time", "ns": "time", "GB/s": "rate", "TB/s": "rate",
         "GFLOP/s": "rate", "TFLOP/s": "rate", "TFLOPS": "rate", "x": "ratio", "times": "ratio", "": "ratio", "%": "percent"}
NUMBERS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def numbers(text):
    return [float(x) for x in NUMBERS.findall(text.replace(",", ""))]


TYPED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(\s?(?:ms|µs|us|ns|GB/s|TB/s|GFLOP/s|TFLOP/s|TFLOPS)\b|x\b)?")


def typed_numbers(text):
    """(value, kind) of every number of a results file: kind is "time", "rate" or "ratio" when a
    unit follows it, None when none does (a table's bare column)."""
    out = []
    for m in TYPED.finditer(text.replace(",", "")):
        unit = (m.group(2) or "").strip()
        out.append((float(m.group(1)), KINDS[unit] if unit else None))
    return out


def lab_of(path):
    m = re.search(r"(?:labs|slides)/(\d\d)-", path)
    return m.group(1) if m else None


def named_results(text):
    out = []
    for m in re.finditer(r"tests/gpu/results/([\w.\-]+\.txt)", text):
        path = "tests/gpu/results/" + m.group(1)
        if os.path.exists(path):
            out.append(path)
    return out



def bench_values(lab):
    """{kind: values} of the lab's recorded benches: times (and the difference of two), rates,
    ratios (x_ref, x_ceil, and the ratio of two times or of two rates); and the pass mark of the
    lab's table (grader/labs/NN-name/table.c) as a ratio."""
    vals = {"time": set(), "rate": set(), "ratio": set(), "derived": set()}
    for path in glob.glob("labs/%s-*/bench-*.tsv" % lab):
        rows = [l.split("\t") for l in read(path).split("\n")[1:] if l.count("\t") >= 8]
        for f in rows:
            ms, rate = float(f[4]), float(f[5])
            vals["time"].add(ms)
            vals["rate"].add(rate)
            vals["ratio"].update((float(f[7]), float(f[8])))
            for g in rows:
                vals["time"].add(abs(ms - float(g[4])))
                vals["derived"].add(ms / float(g[4]))
                vals["derived"].add(rate / float(g[5]))
    for path in glob.glob("grader/labs/%s-*/table.c" % lab):
        vals["ratio"].update(float(x) for x in re.findall(r"\.threshold\s*=\s*([0-9.]+)", read(path)))
    return vals


def code_only(src):
    """A C file without its comments (the values of the GPU profiles, not what is said of them)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", src, flags=re.S)


def profile_rates(src):
    """What make profiles prints for each GPU of the table: its DRAM bandwidth in GB/s (memory
    clock x 2 x bus width) and its FP32 rate in GFLOP/s (2 x lanes x SMs x SM clock; 64 lanes
    an SM on cc 7.x and 8.0, 128 on the others, as common/device_info.c counts them)."""
    out = []
    for m in re.finditer(r"\{\.key = \"[^\"]+\",(.*?)\}", src, re.S):
        f = dict(re.findall(r"\.(\w+) = ([^,}]+)", m.group(1)))
        try:
            mem, bus = float(f["mem_clock_khz"]), float(f["mem_bus_bits"])
            sms, clk = float(f["sm_count"]), float(f["sm_clock_khz"])
            cc = (int(f["cc_major"]), int(f["cc_minor"]))
        except (KeyError, ValueError):
            continue
        lanes = 64 if cc[0] < 8 or cc == (8, 0) else 128
        out += [mem * 1e3 * 2 * bus / 8 / 1e9, 2 * lanes * sms * clk * 1e3 / 1e9]
    return out


PROFILES = []
if os.path.exists("common/gpu_profiles.c"):
    PROFILES = numbers(code_only(read("common/gpu_profiles.c"))) + profile_rates(code_only(read("common/gpu_profiles.c")))
_cache = {}


def sources(lab, own_text):
    """{kind: values} a figure of lab `lab` (None: not a lab's) may come from; "any": the
    numbers of the results files named and of the GPU profiles, whatever their unit."""
    key = (lab, own_text if lab is None else None)
    if key in _cache:
        return _cache[key]
    texts = [own_text]
    if lab:
        texts += [read(p) for p in glob.glob("labs/%s-*/README.md" % lab) + glob.glob("slides/%s-*.md" % lab)]
    vals = bench_values(lab) if lab else {"time": set(), "rate": set(), "ratio": set(), "derived": set()}
    if not lab:  # the primer, VERIFYING.md, the notebook's general cells: every lab's pass mark
        for path in glob.glob("grader/labs/*/table.c"):
            vals["ratio"].update(float(x) for x in re.findall(r"\.threshold\s*=\s*([0-9.]+)", read(path)))
    vals["any"] = set()
    vals["profiles"] = set(PROFILES)
    for t in texts:
        for path in named_results(t):
            for v, kind in typed_numbers(read(path)):
                vals[kind or "any"].add(v)
        for m in re.finditer(r"labs/(\d\d)-[\w-]+/bench-[\w-]+\.tsv", t):
            if os.path.exists(m.group(0)):
                for line in read(m.group(0)).split("\n")[1:]:
                    f = line.split("\t")
                    if len(f) >= 9:
                        vals["any"].update(float(x) for x in (f[4], f[5], f[7], f[8]))
    _cache[key] = vals
    return vals


def figures(text):
    """(line number, figure as written, value, tolerance, unit) of every figure of text."""
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        seen = set()
        for m in FIGURE.finditer(line):
            unit = m.group(2) or m.group(3) or m.group(4) or m.group(5)
            seen.add(m.start(1))
            out.append((i, m.group(0).strip(), m.group(1), unit))
        for m in BARE.finditer(line):
            if m.start(1) not in seen:
                out.append((i, m.group(1), m.group(1), ""))
    res = []
    for i, shown, num, unit in out:
        decimals = len(num.split(".")[1]) if "." in num else 0
        res.append((i, shown, float(num.replace(",", "")), 0.5 * 10 ** -decimals + 1e-9, unit))
    return res


SCALES = {"ms": (1.0, 1000.0), "us": (1.0, 0.001), "µs": (1.0, 0.001), "ns": (1.0, 0.001),
          "TB/s": (1.0, 1000.0), "TFLOP/s": (1.0, 1000.0), "TFLOPS": (1.0, 1000.0), "GB/s": (1.0, 0.001), "GFLOP/s": (1.0, 0.001)}


def matches(value, tol, unit, srcs):
    """Whether a source value rounds to the figure: in its own unit, or (times, rates) a
    thousand times larger or smaller (us against ms, TFLOP/s against GFLOP/s). The GPU
    profiles' numbers count in the figure's own unit only."""
    # a speed-up written as one ("2.55x", "2.5 times") may be the ratio of two rows; a bare
    # fraction ("0.96 of the ideal", a table's cell) must be a value of its own
    if unit == "%":  # a share: a value written as one, or a fraction (a ratio of two rows) x 100
        pool = srcs["any"] | srcs["ratio"] | srcs["derived"] | srcs["time"] | srcs["rate"]
        return any(value - tol <= v <= value + tol or value - tol <= 100 * v <= value + tol
                   or value - tol <= 100 * (v - 1) <= value + tol for v in pool)
    if unit in ("x", "times"):
        typed = srcs["ratio"] | srcs["derived"]
    else:
        typed = srcs[KINDS[unit]] if unit else srcs["time"] | srcs["rate"] | srcs["ratio"]
    for k in SCALES.get(unit, (1.0,)):
        lo, hi = (value - tol) * k, (value + tol) * k
        for v in typed | srcs["any"]:
            if lo <= v <= hi:
                return True
    for k in SCALES.get(unit, (1.0,)) if unit in ("TB/s", "TFLOP/s", "TFLOPS") else (1.0,):
        lo, hi = (value - tol) * k, (value + tol) * k
        if any(lo <= v <= hi for v in srcs["profiles"]):
            return True
    return False


def comments(src):
    """The comments of a C or CUDA file, with their line breaks kept (so the lines count)."""
    out = []
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|[^/\"]+|/", src, re.S):
        t = m.group(0)
        out.append(t if t.startswith("/*") or t.startswith("//") else re.sub(r"[^\n]", " ", t))
    return "".join(out)


def places():
    """(kind, label, lab, text) of every place figures are read in."""
    out = []
    for path in sorted(glob.glob("labs/[0-9][0-9]-*/README.md")) + [p for p in ("labs/PRIMER.md", "labs/VERIFYING.md") if os.path.exists(p)]:
        out.append(("lesson", path, lab_of(path), read(path)))
    for path in sorted(glob.glob("slides/[0-9][0-9]-*.md")):
        out.append(("slide", path, lab_of(path), read(path)))
    nb = "labs/workbook.ipynb"
    if os.path.exists(nb):
        lab = None
        for n, cell in enumerate(json.loads(read(nb))["cells"]):
            src = "".join(cell["source"])
            m = re.match(r"## Lab (\d\d)\b", src)
            if cell["cell_type"] == "markdown":
                lab = m.group(1) if m else None
            out.append(("notebook", "%s#cell%d" % (nb, n), lab, src))
    for path in sorted(glob.glob("labs/[0-9][0-9]-*/*.cu")) + ["common/gpu_profiles.c"]:
        if os.path.exists(path):
            out.append(("comment", path, lab_of(path), comments(read(path))))
    return out


def unrecorded():
    listed = {}
    if os.path.exists(UNRECORDED):
        for n, line in enumerate(read(UNRECORDED).split("\n"), 1):
            if not line.strip() or line.startswith("#"):
                continue
            f = line.split("\t")
            if len(f) < 3 or not f[2].strip():
                print("FAIL %s:%d: wants three tab-separated fields: path, figure, why" % (UNRECORDED, n))
                listed[("", "")] = n
                continue
            listed[(f[0], f[1])] = n
    return listed


def main():
    failures = []
    listed = unrecorded()
    used = set()
    count = {"lesson": 0, "slide": 0, "notebook": 0, "comment": 0}
    for kind, label, lab, text in places():
        vals = sources(lab, text)
        path = label.split("#")[0]
        for line, shown, value, tol, unit in figures(text):
            count[kind] += 1
            if matches(value, tol, unit, vals):
                continue
            if (label, shown) in listed or (path, shown) in listed:
                used.add((label, shown) if (label, shown) in listed else (path, shown))
                continue
            failures.append("FAIL %s:%d (%s): \"%s\" is in no recorded results file of %s, and %s does not list it"
                            % (label, line, kind, shown, "lab " + lab if lab else "its sources", UNRECORDED))
    for key, n in listed.items():
        if key not in used and key != ("", ""):
            failures.append("FAIL %s:%d: lists \"%s\" in %s, which no longer has it unrecorded (remove the line)"
                            % (UNRECORDED, n, key[1], key[0]))
        if key == ("", ""):
            failures.append("FAIL %s: a malformed line" % UNRECORDED)
    for f in failures:
        print(f)
    print("figures: %s checked against the recorded results, %d listed as unrecorded, %d wrong" % (
        ", ".join("%d in %ss" % (v, k) for k, v in count.items()), len(used), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
