#!/usr/bin/env python3
"""snippets.py - the code the lessons teach with compiles.

    tests/docs/snippets.py [ROOT]      (NVCC=... to choose the compiler; default: nvcc on PATH)

A snippet is a fenced code block of labs/NN-name/README.md or labs/PRIMER.md whose line before
the fence is an HTML comment naming it:

    <!-- snippet: warp-sum -->
    ```cuda
    __device__ float warp_sum(float v) { ... }
    ```

Every snippet is compiled on its own terms, as a translation unit's worth of device and host
code, inside a namespace of its own (so two lessons may both define `warp_sum`), with #line
directives that point a compiler error at the lesson's line. All of them go through one
`nvcc -arch=sm_90 -std=c++17 -c` (no GPU needed). A snippet marked `<!-- snippet: NAME, after:
OTHER -->` is compiled in OTHER's namespace, after it, so a lesson can build on an earlier
block. The lessons listed in REQUIRED must hold the snippets named there (what the issue asked
each lesson to teach in code). Without nvcc the compile is skipped, with a message; the
extraction and the required names are still checked.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
os.chdir(ROOT)

REQUIRED = {
    "labs/03-divergence/README.md": ["four-bin-scan-scatter"],
    "labs/06-transpose/README.md": ["tile-transpose-core"],
    "labs/07-reduction/README.md": ["warp-shuffle-sum"],
}
MARK = re.compile(r"^<!-- snippet: ([a-z0-9-]+)(?:, after: ([a-z0-9-]+))? -->$")


def lessons():
    out = []
    for d in sorted(os.listdir("labs")):
        p = os.path.join("labs", d, "README.md")
        if re.match(r"\d\d-", d) and os.path.exists(p):
            out.append(p)
    if os.path.exists("labs/PRIMER.md"):
        out.append("labs/PRIMER.md")
    return out


def snippets(path):
    """(name, after, first line number of the code, code) of every marked block of a lesson."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((m.group(1), m.group(2), i + 3, "\n".join(lines[i + 2:j])))
            i = j
        elif m:
            out.append((m.group(1), m.group(2), i + 1, None))
        i += 1
    return out


def ident(path, name):
    lab = re.search(r"labs/(\d\d)-", path)
    return "snippet_%s_%s" % (lab.group(1) if lab else "primer", name.replace("-", "_"))


def main():
    failures = []
    units = []
    count = 0
    for path in lessons():
        found = snippets(path)
        names = [n for n, _, _, _ in found]
        for name in REQUIRED.get(path, []):
            if name not in names:
                failures.append("FAIL %s: has no snippet \"%s\" (a fenced block after <!-- snippet: %s -->)"
                                % (path, name, name))
        for name, after, line, code in found:
            if code is None:
                failures.append("FAIL %s:%d: the snippet mark \"%s\" is not followed by a fenced block" % (path, line, name))
                continue
            if names.count(name) > 1:
                failures.append("FAIL %s:%d: two snippets are called \"%s\"" % (path, line, name))
            if after and after not in names:
                failures.append("FAIL %s:%d: snippet \"%s\" comes after \"%s\", which the lesson does not hold"
                                % (path, line, name, after))
            count += 1
            space = ident(path, after or name)
            units.append("namespace %s {\n#line %d \"%s\"\n%s\n}\n" % (space, line, path, code))
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or (
        "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    compiled = "not compiled (no nvcc: set NVCC or put it on PATH)"
    if nvcc and units:
        with tempfile.TemporaryDirectory(prefix="snippets-") as tmp:
            src = os.path.join(tmp, "snippets.cu")
            with open(src, "w", encoding="utf-8") as f:
                f.write("".join(units))
            p = subprocess.run([nvcc, "-arch=sm_90", "-std=c++17", "-c", src, "-o", os.path.join(tmp, "snippets.o")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                failures.append("FAIL snippets: nvcc -arch=sm_90 -c did not compile the lessons' snippets:\n" + p.stdout)
            compiled = "compiled with %s -arch=sm_90 -c" % nvcc
    for f in failures:
        print(f)
    print("snippets: %d in %d lessons, %s, %d wrong" % (count, len(lessons()), compiled, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
