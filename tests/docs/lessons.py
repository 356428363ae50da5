#!/usr/bin/env python3
"""lessons.py - what the lessons state that a table of the workbook holds, checked against it.

    tests/docs/lessons.py          (run from anywhere; reads the checkout it lives in)

The lessons are labs/*/README.md, labs/PRIMER.md, labs/VERIFYING.md and slides/NN-name.md.
Each check below prints one FAIL line naming the file, the line and the two figures; the last
line counts them, and the exit status is 1 when any failed.

- Pass marks: every "Passing needs **0.NNx", "pass mark 0.NNx", "You pass at **0.NN**",
  "against the 0.NN mark" ... in a lab's lesson or deck is that lab's `.threshold` in
  grader/labs/NN-name/table.c.
- The first rung to pass: each lab's "Which rung passes first" section names the rung that
  its recorded bench (labs/NN-name/bench-h200.tsv) and its table's mark make the first to
  pass (for a lab of several speed checks, the first to pass every scored one); a lab with no
  recorded bench must still name one.
- Predict, then measure: each lab's lesson has a "## Predict, then measure" section with 3 to 6
  folded answers (<details><summary>Answer</summary>), one of them a prediction for another GPU
  from `make profiles`; it comes before the measured bench table, and any table of measured
  figures above it is folded in <details>.
- GPU facts: a GPU of common/gpu_profiles.c named with a count of SMs or of copy engines in
  a lesson has that count in the table; the primer's occupancy table matches the profiles.
- Links: every relative link of a lesson (and of README.md, tests/RESULTS.md and the grader's READMEs) names a
  file of the checkout, and a link to a heading (file.md#heading) names a heading of that
  file (GitHub's anchor of it); in
  the student kit (make dist: grader/dist/make-dist.sh ships Makefile, README.md, labs,
  grader, common, tests and slides), every link names a file the kit ships: the kit leaves
  out the reference solutions and ladder rungs under solutions/, and make-dist.sh points the
  links to them at the kit's solutions/README.md (it must still do so).
- Cases: every tests/cheats case a lesson names exists.
- Measured figures: the H200 table's rows marked with a dagger in tests/RESULTS.md are the
  lab's own bench-h200.tsv, and its figures for the speed estimate are the footer of
  tests/gpu/results/estimate-vs-h200.txt.
- Terms: requests, sectors and wavefronts, as the primer defines them: no "transaction" (a
  pre-Volta word for what is now a request and its sectors) and no shared-memory "passes" in
  place of wavefronts.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
os.chdir(ROOT)
failures = []
checked = {"marks": 0, "rungs": 0, "questions": 0, "gpu facts": 0, "links": 0, "cases": 0}


def fail(where, msg):
    failures.append("FAIL %s: %s" % (where, msg))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


LAB_DIRS = sorted(os.path.basename(d) for d in glob.glob("grader/labs/[0-9][0-9]-*"))


def threshold(lab_dir):
    m = re.search(r"\.threshold\s*=\s*([0-9.]+)", read("grader/labs/%s/table.c" % lab_dir))
    return float(m.group(1))


def lesson_files():
    files = ["labs/%s/README.md" % d for d in LAB_DIRS if os.path.exists("labs/%s/README.md" % d)]
    files += [f for f in ("labs/PRIMER.md", "labs/VERIFYING.md") if os.path.exists(f)]
    files += sorted(glob.glob("slides/[0-9][0-9]-*.md"))
    return files


def lines_of(path):
    return read(path).split("\n")


# --- pass marks ------------------------------------------------------------------------------
MARK_RES = [
    re.compile(r"(?i)passing needs \**(0\.\d+)"),
    re.compile(r"(?i)pass mark:? \**(0\.\d+)"),
    re.compile(r"(?i)you pass at \**(0\.\d+)"),
    re.compile(r"(?i)against the (0\.\d+) mark"),
    re.compile(r"(?i)needs (0\.\d+)x the reference"),
]
for d in LAB_DIRS:
    mark = threshold(d)
    num = d[:2]
    for path in ["labs/%s/README.md" % d] + glob.glob("slides/%s-*.md" % num):
        if not os.path.exists(path):
            continue
        for i, line in enumerate(lines_of(path), 1):
            for rx in MARK_RES:
                for m in rx.finditer(line):
                    checked["marks"] += 1
                    if abs(float(m.group(1)) - mark) > 1e-9:
                        fail("%s:%d" % (path, i), "says the pass mark is %s; grader/labs/%s/table.c sets %.2f"
                             % (m.group(1), d, mark))

# --- the first rung to pass, and the questions at the end ------------------------------------
def bench_rows(d):
    path = "labs/%s/bench-h200.tsv" % d
    rows = []
    for line in lines_of(path)[1:]:
        f = line.split("\t")
        if len(f) >= 9:
            rows.append((f[1], f[3], float(f[7])))
    return rows


def scored_tasks(d, rows):
    """Tasks in the bench's order; a lab whose table gives a speed check no points (lab 08's
    second) has only its first task scored."""
    tasks = []
    for t, _, _ in rows:
        if t not in tasks:
            tasks.append(t)
    table = read("grader/labs/%s/table.c" % d)
    if "(no points)" in table:
        tasks = tasks[:1]
    return tasks


for d in LAB_DIRS:
    path = "labs/%s/README.md" % d
    if not os.path.exists(path):
        continue
    text = read(path)
    mark = threshold(d)
    # a lab without a recorded bench (its table waits for make bench on an H200): the section
    # must still name a rung, which nothing here can hold to a figure
    recorded = os.path.exists("labs/%s/bench-h200.tsv" % d)
    rows = bench_rows(d) if recorded else []
    expected = 0
    for task in scored_tasks(d, rows):
        first = None
        for t, variant, x_ref in rows:
            m = re.match(r"steps/(\d+)-", variant)
            if t == task and m and x_ref >= mark:
                first = int(m.group(1))
                break
        if first is None:
            first = 10 ** 6  # only the reference passes
        expected = max(expected, first)
    sec = re.search(r"## Which rung passes first, and why\n(.*?)(?=\n## |\Z)", text, re.S)
    checked["rungs"] += 1
    if not sec:
        fail(path, "has no \"## Which rung passes first, and why\" section")
    else:
        m = re.search(r"(?i)\b(rung|step) (\d+)\b[^.]*?\bthe first (?:file )?to pass", sec.group(1))
        if not m:
            fail(path, "its \"Which rung passes first\" section names no rung as the first to pass")
        elif recorded and int(m.group(2)) != expected:
            fail(path, "names %s %s as the first to pass; labs/%s/bench-h200.tsv and the mark %.2f make it %s"
                 % (m.group(1), m.group(2), d, mark, expected if expected < 10 ** 6 else "the reference"))
    sec = re.search(r"\n## Predict, then measure\n(.*?)(?=\n## |\Z)", text, re.S)
    checked["questions"] += 1
    if not sec:
        fail(path, "has no \"## Predict, then measure\" section")
    else:
        n = sec.group(1).count("<details><summary>Answer</summary>")
        closed = sec.group(1).count("</details>")
        if not 3 <= n <= 6 or n != closed:
            fail(path, "has %d folded answers (%d closed) to predict; 3 to 6 expected" % (n, closed))
        if "make profiles" not in sec.group(1):
            fail(path, "its questions ask for no prediction on another GPU from `make profiles`")
        # predict, then measure: the questions come before the measured bench table, and every
        # table of figures before them is folded (<details>) so that it cannot answer them
        bench = text.find("<!-- bench:begin -->")
        if bench >= 0 and bench < sec.start():
            fail(path, "its questions come after the measured bench table: move \"## Predict, then measure\" before it")
        before = text[:sec.start()]
        depth = 0
        for line in before.split("\n"):
            depth += line.count("<details>") - line.count("</details>")
            if depth == 0 and line.startswith("|") and re.search(
                    r"\d\s?(?:ms|µs|us|GB/s|TB/s|GFLOP/s|TFLOP/s)\b|\|\s*0\.\d\d", line):
                fail(path, "a table of measured figures comes before the questions, not folded: \"%s\"" % line[:60])
                break

# --- GPU facts -------------------------------------------------------------------------------
profiles = {}
for m in re.finditer(r'\{\.key = "([^"]+)",(.*?)\}', read("common/gpu_profiles.c"), re.S):
    fields = dict(re.findall(r"\.(\w+) = ([^,}]+)", m.group(2)))
    profiles[m.group(1)] = fields
# How the lessons name the GPUs of the profiles (a name the table does not hold, such as the
# H100 PCIe, is not checked here).
ALIASES = [("T4", "t4"), ("A100", "a100-40gb"), ("H100 SXM", "h100-sxm"), ("H100", "h100-sxm"), ("H200", "h200"),
           ("B200", "b200"), ("L4", "l4"), ("RTX 4090", "rtx4090")]


def prof_int(key, field):
    v = profiles[key][field].strip()
    m = re.match(r"(\d+)\s*\*\s*KiB", v)
    return int(m.group(1)) if m else int(v)


for path in lesson_files():
    for i, line in enumerate(lines_of(path), 1):
        for name, key in ALIASES:
            for m in re.finditer(r"\b%s\b(?! PCIe)" % re.escape(name), line):
                after = line[m.end():m.end() + 40]
                if "SMs" in line:
                    n = re.match(r"(?:,? (?:or|and) an? [A-Z][A-Za-z0-9 ]*?)?(?: has| \()? (\d+)\b", after)
                    if n:
                        checked["gpu facts"] += 1
                        if int(n.group(1)) != prof_int(key, "sm_count"):
                            fail("%s:%d" % (path, i), "gives the %s %s SMs; common/gpu_profiles.c has %d"
                                 % (name, n.group(1), prof_int(key, "sm_count")))

# Copy engines, per paragraph (a count and the GPUs it is given for may sit on two lines):
# "3 on the H200, and on the T4, A100 and H100 ...", "(NVIDIA H200, ..., 3 copy engines".
for path in lesson_files():
    for para in re.split(r"\n\s*\n", read(path)):
        if "copy engine" not in para:
            continue
        flat = " ".join(para.split())
        for seg in re.finditer(r"\b(\d) (?:on|copy engines?)\b([^;.]*)", flat):
            for name, key in ALIASES:
                if re.search(r"\b%s\b(?! PCIe)" % re.escape(name), seg.group(0)):
                    checked["gpu facts"] += 1
                    if int(seg.group(1)) != prof_int(key, "async_engines"):
                        fail(path, "gives the %s %s copy engines (\"%s\"); common/gpu_profiles.c has %d"
                             % (name, seg.group(1), seg.group(0)[:60], prof_int(key, "async_engines")))
# The primer's occupancy table: one column per GPU, one row per limit.
if os.path.exists("labs/PRIMER.md"):
    text = read("labs/PRIMER.md")
    cols = {"T4 (7.5)": "t4", "A100 (8.0)": "a100-40gb", "H100 SXM / H200 (9.0)": "h200"}
    rowkeys = {"threads": "max_threads_per_sm", "blocks": "max_blocks_per_sm",
               "32-bit registers": "regs_per_sm", "shared memory": "smem_per_sm", "SMs": "sm_count"}
    head = re.search(r"^\| per SM \|(.*)\|$", text, re.M)
    if not head:
        fail("labs/PRIMER.md", "has no occupancy table (a row starting \"| per SM |\")")
    else:
        names = [c.strip() for c in head.group(1).split("|")]
        for label, field in rowkeys.items():
            r = re.search(r"^\| %s \|(.*)\|$" % re.escape(label), text, re.M)
            if not r:
                fail("labs/PRIMER.md", "its occupancy table has no row \"%s\"" % label)
                continue
            cells = [c.strip() for c in r.group(1).split("|")]
            for name, cell in zip(names, cells):
                key = cols.get(name)
                if not key:
                    continue
                got = int(re.match(r"\d+", cell).group(0))
                keys = [key, "h100-sxm"] if key == "h200" else [key]
                for k in keys:
                    checked["gpu facts"] += 1
                    if got != prof_int(k, field):
                        fail("labs/PRIMER.md", "occupancy table: %s of the %s is %d, common/gpu_profiles.c has %d"
                             % (label, k, got, prof_int(k, field)))

# --- links -----------------------------------------------------------------------------------
def kit_files():
    """What grader/dist/make-dist.sh ships, read from its own git ls-files line."""
    script = read("grader/dist/make-dist.sh")
    m = re.search(r"git ls-files -z -- ([^|]*)\|", script)
    tops = m.group(1).split()
    shipped = set()
    for top in tops:
        if os.path.isfile(top):
            shipped.add(top)
        for dp, _, fs in os.walk(top) if os.path.isdir(top) else []:
            for f in fs:
                shipped.add(os.path.normpath(os.path.join(dp, f)))
    return tops, shipped, script


in_kit = not os.path.isdir("solutions") or not glob.glob("solutions/[0-9][0-9]-*")
tops, shipped, script = kit_files()
if "solutions/README.md)#g" not in script:
    fail("grader/dist/make-dist.sh", "no longer points the kit's links to solutions/ at its solutions/README.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path):
    """GitHub's anchors of a Markdown file's headings: lower case, spaces to dashes, and
    every character but letters, digits, '-' and '_' dropped."""
    out = set()
    fence = False
    for line in lines_of(path):
        if line.startswith("```"):
            fence = not fence
        m = re.match(r"#{1,6} +(.*?) *#* *$", line)
        if m and not fence:
            text = re.sub(r"[`*_]|\]\([^)]*\)|\[", "", m.group(1))
            out.add(re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-"))
    return out


readmes = ["README.md", "tests/RESULTS.md"] + sorted(glob.glob("grader/README.md") + glob.glob("grader/*/README.md"))
for path in lesson_files() + readmes:
    base = os.path.dirname(path)
    for i, line in enumerate(lines_of(path), 1):
        for m in LINK.finditer(line):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            rel = os.path.normpath(os.path.join(base, target))
            # slides name their pictures from slides/ or from the checkout (--resource-path=.:slides)
            if path.startswith("slides/") and not os.path.exists(rel) and os.path.exists(os.path.normpath(target.lstrip("./"))):
                rel = os.path.normpath(target.lstrip("./"))
            checked["links"] += 1
            if rel.startswith("solutions" + os.sep) or rel == "solutions":
                # (in the kit, make-dist.sh points every such link at solutions/README.md)
                if not os.path.exists(rel):
                    fail("%s:%d" % (path, i), "links to %s, which does not exist" % target)
                continue
            if not os.path.exists(rel):
                fail("%s:%d" % (path, i), "links to %s, which does not exist" % target)
            elif "#" in m.group(1) and rel.endswith(".md") and os.path.isfile(rel) and \
                    m.group(1).split("#", 1)[1] not in anchors(rel):
                fail("%s:%d" % (path, i), "links to %s, whose heading is not in %s" % (m.group(1), rel))
            elif os.path.isfile(rel) and rel not in shipped and not in_kit:
                fail("%s:%d" % (path, i), "links to %s, which the student kit does not ship (grader/dist/make-dist.sh "
                     "ships %s)" % (target, " ".join(tops)))

# --- cheat cases named -----------------------------------------------------------------------
for path in lesson_files():
    for i, line in enumerate(lines_of(path), 1):
        for m in re.finditer(r"\b([cgh]\d\d-[a-z0-9]+(?:-[a-z0-9]+)*)\b", line):
            checked["cases"] += 1
            if not os.path.exists("tests/cheats/%s.cu" % m.group(1).removesuffix(".cu")):
                fail("%s:%d" % (path, i), "names the case %s, which tests/cheats/ does not hold" % m.group(1))

# --- the results page's H200 table: rows marked with a dagger come from the lab's own bench-h200.tsv ---
RESULTS = "tests/RESULTS.md"
def bench_full(d):
    """(task, variant) -> (rate, unit) of labs/D/bench-h200.tsv."""
    out = {}
    for line in lines_of("labs/%s/bench-h200.tsv" % d)[1:]:
        f = line.split("\t")
        if len(f) >= 9:
            out[(f[1], f[3])] = (float(f[5]), f[6])
    return out


def shown_rate(cell):
    """'11.3 TFLOP/s' or 'cudaMemcpy D2D 4164 GB/s' -> the rate in the bench's units (GB/s or
    GFLOP/s), with the precision it is written to."""
    m = re.search(r"([\d.]+) (GB/s|TFLOP/s|GFLOP/s)\s*$", cell.strip())
    if not m:
        return None
    v, u = float(m.group(1)), m.group(2)
    decimals = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    scale = 1000.0 if u == "TFLOP/s" else 1.0
    return v * scale, 0.5 * 10 ** -decimals * scale


lab_dirs = {d.split("-", 1)[0]: d for d in os.listdir("labs") if re.match(r"\d\d-", d)}
for i, line in enumerate(lines_of(RESULTS), 1):
    m = re.match(r"\| (\d\d) [^|]*†[^|]*\|", line)
    if not m:
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    d = lab_dirs.get(m.group(1))
    rows = bench_full(d) if d else {}
    task = "ilp_arith" if "arithmetic" in cells[0] else "ilp_memory" if "memory" in cells[0] else None
    keys = {}
    for (t, v), val in rows.items():
        if task is None or t == task:
            keys[v] = val
    ceiling = [v for v in keys if v not in ("skeleton", "reference") and not v.startswith("steps/")]
    for col, variant in ((2, "skeleton"), (3, "reference"), (4, ceiling[0] if ceiling else None)):
        checked["H200 figures"] = checked.get("H200 figures", 0) + 1
        got = shown_rate(cells[col])
        want = keys.get(variant)
        if got is None or want is None or abs(got[0] - want[0]) > got[1] + 1e-9:
            fail("%s:%d" % (RESULTS, i), "lab %s's %s is %r; labs/%s/bench-h200.tsv holds %s" % (
                m.group(1), variant, cells[col], d, "%.2f %s" % want if want else "no such row"))

# --- the results page's trust figures for the speed estimate: the agreement table's footer ---
footer = [l for l in lines_of("tests/gpu/results/estimate-vs-h200.txt") if l.startswith("# all (labs not excluded):")]
m_table = re.search(r"(\d+) cases, (\d+) on the same side of the mark \(\d+%\), (\d+) within 25%", footer[0]) if footer else None
readme = " ".join(lines_of(RESULTS))
m_readme = re.search(r"side of the mark in (\d+) cases of (\d+) .*? and within 25% of it in (\d+)", readme)
checked["estimate figures"] = 1
if not m_table or not m_readme:
    fail(RESULTS, "the speed estimate's figures (\"in N cases of M ... within 25% of it in K\") or the footer of "
         "tests/gpu/results/estimate-vs-h200.txt is missing")
elif (m_readme.group(1), m_readme.group(2), m_readme.group(3)) != (m_table.group(2), m_table.group(1), m_table.group(3)):
    fail(RESULTS, "says the estimate fell on the right side in %s of %s cases and within 25%% in %s; "
         "tests/gpu/results/estimate-vs-h200.txt says %s of %s and %s" % (
             m_readme.group(1), m_readme.group(2), m_readme.group(3), m_table.group(2), m_table.group(1), m_table.group(3)))

# --- the primer's launch cost: the recorded make doctor run -----------------------------------
doctor = " ".join(lines_of("tests/gpu/results/h200-doctor.txt"))
m_doc = re.search(r"launch +([\d.]+) us to launch an empty kernel and wait for it; ([\d.]+) us a launch queued", doctor)
m_pri = re.search(r"On an H200 it measured ([\d.]+) µs for a launch waited for and\s+([\d.]+) µs for one queued",
                  read("labs/PRIMER.md"))
checked["launch figures"] = 1
if not m_doc or not m_pri or m_doc.groups() != m_pri.groups():
    fail("labs/PRIMER.md", "the launch figures (%s) are not those of tests/gpu/results/h200-doctor.txt's launch line (%s)" % (
        m_pri.groups() if m_pri else "missing", m_doc.groups() if m_doc else "missing"))

# --- the probes' figures in lessons 01 and 04: the recorded runs ---------------------------
def probe_rows(path):
    """{variant (and launch): (ms, rate, fraction)} of a tests/gpu probe's recorded table."""
    rows = {}
    for line in lines_of(path):
        m = re.match(r"(\S.*?)\s+(-|<<<\d+, \d+>>>)?\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+ok$", line)
        if m:
            rows[(m.group(1).strip(), m.group(2) or "")] = tuple(float(x) for x in m.group(3, 4, 5))
    return rows
stride = probe_rows("tests/gpu/results/h200-stride.txt")
lab01 = " ".join(lines_of("labs/01-coalescing/README.md"))
for k in (1, 2, 4, 8, 16, 32, 64):
    checked["probe figures"] = checked.get("probe figures", 0) + 1
    got = stride.get(("stride %d" % k, ""))
    if not got or not re.search(r"stride %d: %d( GB/s)?[,.]" % (k, round(got[1])), lab01):
        fail("labs/01-coalescing/README.md", "stride %d's rate is not tests/gpu/results/h200-stride.txt's (%s)" % (
            k, round(got[1]) if got else "no such row"))
occ = probe_rows("tests/gpu/results/h200-occupancy.txt")
lab04 = read("labs/04-ilp/README.md")
for label, key in (("one float per iteration (the skeleton's kernel)", ("skeleton: one float per iteration", "<<<1056, 256>>>")),
                   ("one float per thread, no loop", ("one float per thread, no loop", "<<<491520, 256>>>")),
                   ("block shares, 1 float4 per iteration", ("rung 1: block shares, one float4 per iteration", "<<<1056, 256>>>")),
                   ("1 chain per thread", ("skeleton: one chain per thread", "<<<1056, 256>>>"))):
    checked["probe figures"] += 1
    got = occ.get(key)
    m = re.search(r"^\| (?:memory|arithmetic): %s[^|]*\| ([\d.]+) \| ([\d.]+) [GT]\S+ \| ([\d.]+) \|$" % re.escape(label), lab04, re.M)
    half = lambda shown: 0.5 * 10 ** -len(shown.partition(".")[2]) + 1e-9  # half the last digit shown
    if not got or not m or any(abs(float(m.group(i + 1)) - got[i]) > half(m.group(i + 1)) for i in range(3)):
        fail("labs/04-ilp/README.md", "the full-occupancy row \"%s\" is %s; tests/gpu/results/h200-occupancy.txt holds %s" % (
            label, m.group(1, 2, 3) if m else "missing", got))

sorted_rows = {}
for line in lines_of("tests/gpu/results/h200-sorted.txt"):
    m = re.match(r"(skeleton|rung 1), sorted by class\s+([\d.]+)\s+ok$", line)
    if m:
        sorted_rows[m.group(1)] = round(float(m.group(2)), 3)
checked["probe figures"] += 1
m = re.search(r"took ([\d.]+) ms\s+where the skeleton's four-loop kernel took ([\d.]+) ms", read("labs/03-divergence/README.md"))
if not m or (float(m.group(1)), float(m.group(2))) != (sorted_rows.get("rung 1"), sorted_rows.get("skeleton")):
    fail("labs/03-divergence/README.md", "the sorted-input times (%s) are not tests/gpu/results/h200-sorted.txt's (%s)" % (
        m.group(1, 2) if m else "missing", sorted_rows))

# --- terms -----------------------------------------------------------------------------------
for path in lesson_files():
    for i, line in enumerate(lines_of(path), 1):
        if re.search(r"(?i)\btransactions?\b", line):
            fail("%s:%d" % (path, i), "says \"transaction\": the lessons count requests and their 32-byte sectors")
        if re.search(r"(?i)\b(\d+|n|`n`|\*\*`n`|one|two|four) passes\b|passes per (step|warp|read)", line) and \
                re.search(r"(?i)bank|wavefront|shared|conflict|warp", line):
            fail("%s:%d" % (path, i), "counts shared-memory passes: the lessons call them wavefronts")
if os.path.exists("labs/PRIMER.md"):
    primer = read("labs/PRIMER.md")
    for term in ("request", "sector", "wavefront"):
        if not re.search(r"- a \*\*%s\*\*:" % term, primer):
            fail("labs/PRIMER.md", "does not define \"%s\" (a line \"- a **%s**: ...\")" % (term, term))

for f in failures:
    print(f)
print("lessons: %s checked in %d files, %d wrong" % (
    ", ".join("%d %s" % (v, k) for k, v in checked.items()), len(lesson_files() + readmes), len(failures)))
sys.exit(1 if failures else 0)
