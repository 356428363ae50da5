#!/usr/bin/env bash
# run.sh - a tenth lab is three folders: `make new-lab NAME=toy` in a copy of the workbook, then
# the toy lab graded end to end under the CPU emulator.
#
#   tests/newlab/run.sh          (BUILD from the environment, default build)
#
# The copy is the checkout's files (tracked, and new ones git does not ignore) with their times,
# in BUILD/tests/newlab/tree, plus this build's emulator library, precompiled prelude and the
# grader's shared objects (so that they are not built again: their sources keep their times).
# There, and only there:
#   - make new-lab NAME=toy writes grader/labs/10-toy, labs/10-toy and solutions/10-toy, and
#     what make docs-gen derives from them (README.md's table, the notebook's cells, the
#     skeletons' hashes, a slide deck to write), and nothing else;
#   - what it wrote is the template's, neutral: no other lab's name, number, folder or task in
#     it, and a problem.cu of the lab's own lines alone (no lifecycle hook of its own: its
#     buffers are declared for grader/labs/lab_io.h);
#   - the derived files put back as committed, tests/docs/labs.sh fails naming them, and make
#     docs-gen alone writes them again byte for byte: the three folders are the whole lab;
#   - make grade LAB=toy STUDENT=solutions EMU=1 builds the new lab with the others' rules and
#     grades it: every correctness check OK, the speed check skipped (exit status 2), under the
#     heading "== 10 toy";
#   - make grade LAB=10 picks the same lab, and make grade LAB=toy on the untouched skeleton
#     passes every correctness check too;
#   - tests/docs/labs.sh then passes: every place that lists the labs lists the toy lab.
# Prints one line per check and `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/tests/result.sh"
build=${BUILD:-build}
work=$build/tests/newlab
tree=$work/tree
if [ ! -d solutions/01-coalescing ]; then
    echo "skipped: the toy lab is graded with STUDENT=solutions, which a student kit (no solution sources) refuses"
    exit 0
fi
rm -rf "$work" && mkdir -p "$tree" || exit 2
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$tree" ||
    { echo "newlab: could not copy the checkout into $tree" >&2; exit 2; }
if [ -f "$build/emu/tools/libcudaemu.a" ]; then
    mkdir -p "$tree/build/emu" && cp -a "$build/emu/tools" "$tree/build/emu/tools"
    [ ! -d "$build/emu/pch" ] || cp -a "$build/emu/pch" "$tree/build/emu/pch"
fi
# and the grader's objects that every lab shares, the host's and the emulator's, with their
# times: what the new lab changes (the labs' list and what includes it) make builds again, by
# the same rules as in a fresh checkout; the rest it need not compile a second time
for d in host emu/common emu/grader emu/host emu/pic; do
    [ ! -d "$build/$d" ] || { mkdir -p "$tree/build/$(dirname "$d")" && cp -a "$build/$d" "$tree/build/$d"; }
done
cd "$tree" || exit 2
git init -q . && git add -A && git -c user.email=t@t -c user.name=t commit -qm copy || exit 2

make --no-print-directory new-lab NAME=toy >"$top/$work/new-lab.txt" 2>&1
result "make new-lab NAME=toy" $? "$(tail -3 "$top/$work/new-lab.txt")"
changed=$(git status --porcelain --untracked-files=normal | awk '{print $2}' | sort | tr '\n' ' ')
derived="README.md labs/skeletons.normalised.sha256 labs/skeletons.sha256 labs/workbook.ipynb slides/10-toy.md"
[ "$changed" = "README.md grader/labs/10-toy/ labs/10-toy/ labs/skeletons.normalised.sha256 labs/skeletons.sha256 labs/workbook.ipynb slides/10-toy.md solutions/10-toy/ " ]
result "it wrote the three folders and what make docs-gen derives from them, nothing else" $? "git status: $changed"
grep -qF '| 10 | [toy](labs/10-toy/README.md) |' README.md && grep -qF '"!make grade LAB=10"' labs/workbook.ipynb &&
    grep -qE '  10-toy/toy\.cu$' labs/skeletons.sha256 && grep -q '^Ten CUDA C labs, each' README.md
result "README.md's table and its opening count (Ten), the notebook and the skeletons' hashes list the toy lab" $? \
    "$(git diff --stat | tail -1)"
others=$(grep -rIlE 'coalesc|scale\[|bias|[Ll]ab 0[1-9]|0[1-9]-[a-z]' grader/labs/10-toy labs/10-toy solutions/10-toy)
[ -z "$others" ]
result "the new lab's files are the template's: no other lab's name, number, folder or task" $? "$others"
own=$(grep -cE '^static (void|int) (destroy|prepare|refresh|outputs|inputs)\(|dbuf_(alloc|poison|free)|xmalloc' grader/labs/10-toy/problem.cu)
grep -q '"../lab_io.h"' grader/labs/10-toy/problem.cu && [ "$own" = 0 ]
result "its problem.cu holds the lab's own lines: buffers declared, no lifecycle of its own" $? "$own such lines"
mkdir -p "$top/$work/derived" && for f in $derived; do cp "$f" "$top/$work/derived/${f//\//_}"; done
git checkout -q -- README.md labs/skeletons.normalised.sha256 labs/skeletons.sha256 labs/workbook.ipynb && rm -f slides/10-toy.md
tests/docs/labs.sh >"$top/$work/labs-before.txt" 2>&1
s=$?
[ "$s" = 1 ] && grep -q 'docs-gen: README.md is not' "$top/$work/labs-before.txt" &&
    grep -q 'docs-gen: labs/workbook.ipynb is not' "$top/$work/labs-before.txt" &&
    grep -q 'docs-gen: labs/skeletons.sha256 is not' "$top/$work/labs-before.txt" &&
    grep -q 'docs-gen: slides/10-toy.md is not' "$top/$work/labs-before.txt"
result "with the folders alone, tests/docs/labs.sh names each derived file that lacks the toy lab" $? \
    "$(head -5 "$top/$work/labs-before.txt")"
make --no-print-directory docs-gen >"$top/$work/docs-gen.txt" 2>&1
same=0
for f in $derived; do cmp -s "$f" "$top/$work/derived/${f//\//_}" || same=1; done
result "make docs-gen writes from the three folders what make new-lab wrote, byte for byte" $same \
    "$(cat "$top/$work/docs-gen.txt")"

grade() { # OUT ARGS...: make grade under the emulator; its exit status and results.json's
    local out=$1
    shift
    make --no-print-directory grade EMU=1 GRADE_WHERE=0 SEED=0x5eed GRADE_DIR="build/$out" "$@" \
        >"$top/$work/$out.txt" 2>&1
    echo $?
}
all_correct() { # RESULTS LAB: every correctness check of LAB OK, the speed check skipped
    python3 - "$1" "$2" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
labs = [l for l in res["labs"] if l["lab"] == sys.argv[2]]
checks = labs[0]["checks"] if labs else []
ok = labs and labs[0]["number"] == "10" and len(res["labs"]) == 1 and checks and all(
    c["verdict"] == ("SKIP" if c["kind"] == "speed" else "OK") for c in checks)
sys.exit(0 if ok else 1)
EOF
}
status=$(grade solutions LAB=toy STUDENT=solutions)
all_correct build/solutions/results.json toy && grep -q '^== 10 toy: ' "$top/$work/solutions.txt" && [ "$status" = 2 ]
result "make grade LAB=toy STUDENT=solutions: the reference passes every correctness check (exit 2: speed not timed)" $? \
    "exit $status; $(grep -E 'FAIL|ERROR|error' "$top/$work/solutions.txt" | head -3)"
status=$(grade skeleton LAB=10)
all_correct build/skeleton/results.json toy && [ "$status" = 2 ]
result "make grade LAB=10: the skeleton, found by its number, passes every correctness check" $? \
    "exit $status; $(grep -E 'FAIL|ERROR|error' "$top/$work/skeleton.txt" | head -3)"

tests/docs/labs.sh >"$top/$work/labs.txt" 2>&1
result "tests/docs/labs.sh: every place that lists the labs lists the toy lab" $? "$(grep -E 'FAIL|labs:' "$top/$work/labs.txt" | head -5)"

results "newlab"
