#!/usr/bin/env bash
# tests/dist/run.sh - the student kit (make dist), checked from the outside.
#
#   tests/dist/run.sh KIT.tar.gz          (make test-dist builds the kit first)
#
# Unpacks the kit in a temporary folder and checks:
#   - every relative link of every Markdown file and notebook cell it ships resolves inside
#     the kit (tests/dist/links.py): a lesson's links to the reference sources lead to the
#     kit's solutions/README.md, which says where they are
#   - no solution source is inside: nothing under solutions/ but its README, no ladder rung
#     by name, no file with the bytes of any file of solutions/, no line of a reference's
#     source in its prebuilt objects
#   - every lab has both prebuilt objects; the GPU one holds machine code for every
#     architecture in prebuilt/BUILDINFO and the newest one's PTX
#   - in the kit, with no GPU (EMU=1), grader/driver/grade.sh grades the untouched skeletons against
#     the prebuilt reference: every correctness check OK, every speed check SKIP, exit status
#     2. Labs DIST_TEST_LABS (default: every lab, so that each prebuilt reference is linked,
#     run and compared). The kit builds all it needs but the emulator's tools and the grader's
#     emulated objects, which it takes from the checkout's build when its common/emu/ and
#     Makefile are the checkout's, byte for byte (each object only where the kit holds every
#     file it was compiled from, the same byte for byte)
#   - the GPU build of lab 01's reference, for the first architecture BUILDINFO names (as on a
#     machine with that GPU), links the prebuilt fat object; an
#     emulator object that this g++ cannot link stops the build with one line naming what is
#     missing
#   - the verbs that need solution sources stop with one line that says this is a student
#     kit: make grade STUDENT=solutions, make gradescope-kit, make dist
# The temporary folder is removed when every check passed, and kept (its path printed) when not.
# Prints one line per check and `N passed, M failed`; exits 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
tgz=${1:?usage: tests/dist/run.sh KIT.tar.gz}
labs=${DIST_TEST_LABS:-$(ls -d grader/labs/[0-9][0-9]-* | sed 's|.*/\([0-9][0-9]\)-.*|\1|' | paste -sd,)}
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/workbook-kit.XXXXXX")
tar -xzf "$tgz" -C "$tmp" || { echo "FAIL cannot unpack $tgz"; echo "0 passed, 1 failed"; exit 1; }
top=$(ls "$tmp")
kit=$tmp/$top
[ "$(echo "$top" | wc -l)" = 1 ] && [ -d "$kit" ] && ok "$(basename "$tgz") unpacks into one folder, $top/ ($(du -k "$tgz" | cut -f1) KiB packed, $(find "$kit" -type f | wc -l) files)" ||
    bad "$(basename "$tgz") should unpack into one folder, not: $top"

# ---- Links: what the kit ships links only to what it ships --------------------------------
if links=$(python3 tests/dist/links.py "$kit" 2>&1); then
    ok "${links##*$'\n'} (every Markdown file and notebook cell; links to a reference or a rung lead to solutions/README.md)"
else
    bad "links that do not resolve in the kit: $(echo "$links" | head -8 | tr '\n' ' ')"
fi

# ---- No solution source ------------------------------------------------------------------
extra=$(cd "$kit" && find solutions -type f ! -path solutions/README.md 2>/dev/null)
[ -z "$extra" ] && ok "solutions/ holds its README only" || bad "files under solutions/: $extra"

rungs=$(for r in solutions/[0-9][0-9]-*/steps/*; do [ -f "$r" ] && basename "$r"; done | sort -u)
found=$(cd "$kit" && for r in $rungs; do find . -name "$r"; done)
[ -z "$found" ] && ok "no ladder rung by name ($(echo "$rungs" | wc -w) rungs in the workbook)" ||
    bad "ladder rungs in the kit: $found"

copies=$(python3 - "$kit" <<'EOF'
import hashlib, os, sys
def digest(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()
sol = {}
for d, _, fs in os.walk("solutions"):
    for f in fs:
        sol[digest(os.path.join(d, f))] = os.path.join(d, f)
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        p = os.path.join(d, f)
        if digest(p) in sol:
            print(os.path.relpath(p, sys.argv[1]), "=", sol[digest(p)])
EOF
)
[ -z "$copies" ] && ok "no file of the kit has the bytes of a file of solutions/ ($(find solutions -type f | wc -l) files)" ||
    bad "copies of solution files: $copies"

# ---- The prebuilt objects ------------------------------------------------------------------
objcheck=$(python3 - "$kit" <<'EOF'
import os, re, shlex, struct, subprocess, sys, tempfile
kit = sys.argv[1]
info = {}
for line in open(os.path.join(kit, "prebuilt/BUILDINFO")):
    if "=" in line and not line.startswith("#"):
        k, v = line.rstrip("\n").split("=", 1)
        info[k] = shlex.split(v)[0] if v else ""
archs = [int(a) for a in info["KIT_FAT_ARCHS"].split()]
problems, n = [], 0

def fatbin(obj):
    """(ELF architectures, PTX architectures) of an object's .nv_fatbin section."""
    with tempfile.NamedTemporaryFile() as t:
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", obj, t.name], check=True)
        b = open(t.name, "rb").read()
    elf, ptx, off = set(), set(), 0
    while off + 16 <= len(b):
        magic, _, hs, size = struct.unpack_from("<IHHQ", b, off)
        if magic != 0xBA55ED50:
            break
        e, end = off + hs, off + hs + size
        while e < end:
            kind, _, ehs, padded = struct.unpack_from("<HHII", b, e)
            sm = struct.unpack_from("<I", b, e + 28)[0]
            (ptx if kind == 1 else elf).add(sm)
            e += ehs + padded
        off = end
    return elf, ptx

for d in sorted(os.listdir("grader/labs")):
    if not re.match(r"\d\d-", d):
        continue
    name = d.split("-", 1)[1]
    src = os.path.join("solutions", d, name + ".cu")
    lines = {l.strip() for l in open(src) if len(l.strip()) >= 30}
    for mode in ("gpu", "emu"):
        obj = os.path.join(kit, "prebuilt", mode, d, name + ".o")
        if not os.path.isfile(obj):
            problems.append("missing prebuilt/%s/%s/%s.o" % (mode, d, name))
            continue
        n += 1
        strings = subprocess.run(["strings", "-n", "30", obj], capture_output=True, text=True).stdout
        leaked = lines & {s.strip() for s in strings.splitlines()}
        if leaked:
            problems.append("%s holds source lines of %s: %r" % (obj, src, sorted(leaked)[:2]))
        if mode == "gpu":
            elf, ptx = fatbin(obj)
            if elf != set(archs) or ptx != {archs[-1]}:
                problems.append("%s: machine code for %s and PTX for %s, expected %s and %s"
                                % (obj, sorted(elf), sorted(ptx), archs, [archs[-1]]))
print("%d objects; sm_%d-sm_%d + PTX" % (n, archs[0], archs[-1]) if not problems else "PROBLEMS " + "; ".join(problems))
EOF
)
case $objcheck in
PROBLEMS*|"") bad "prebuilt objects: ${objcheck:-the check did not run}" ;;
*) ok "prebuilt objects: $objcheck (GPU: every architecture of BUILDINFO, PTX of the newest), no source line in any" ;;
esac

# ---- The kit on its own: grade the untouched skeletons under the emulator ------------------
# The emulator's tools (build/emu/tools: its source rewriter and runtime library) are the
# checkout's own build when the kit holds the files they are built from byte for byte: every
# file under common/emu/ and the Makefile, and nothing more there. The same sources, rules and
# compiler make the same tools, which the checkout built for make dist's emulator objects. On
# the same condition the grader's emulated objects and the precompiled prelude come from the
# checkout's build too, each only where the kit holds every file its dependency file names, the
# same byte for byte (tests/dist/reuse_objects.py); the kit compiles the rest (a file it lacks
# fails there), its host programs, the students' files and the labs' links itself. Where a file
# of common/emu/ or the Makefile differs, the kit builds all of it.
tools=${BUILD:-build}/emu/tools
same=$(cd "$kit" && { diff -rq common/emu "$OLDPWD/common/emu" >/dev/null && cmp -s Makefile "$OLDPWD/Makefile"; } && echo yes)
if [ "$same" = yes ] && [ -x "$tools/emu-rewrite" ] && [ -f "$tools/libcudaemu.a" ]; then
    mkdir -p "$kit/build/emu" && cp -a "$tools" "$kit/build/emu/" &&
        tools_from="the emulator's tools from the checkout's build (same sources); $(python3 tests/dist/reuse_objects.py . "$kit" "${BUILD:-build}")"
else
    tools_from="the emulator's tools built in the kit (its common/emu/ or Makefile differs from the checkout's)"
fi
# As a student would run it: no variables of the make that runs this test (its job server only).
export MAKEFLAGS="${MAKEFLAGS%%-- *}"
unset MAKEOVERRIDES MAKELEVEL MFLAGS BUILD
start=$(date +%s)
(cd "$kit" && grader/driver/grade.sh EMU=1 LAB="$labs" SEED="${SEED:-}") >"$tmp/grade.txt" 2>&1
status=$?
secs=$(($(date +%s) - start))
want=$(echo "$labs" | tr , '\n' | wc -l)
# (no GPU: each lab's line gives its correctness checks, not started, and no points)
graded=$(grep -cE '^  [a-z_]+: not started: the file is the workbook.s skeleton, comments and white space aside, so it earns nothing .*; correctness [0-9]+ of [0-9]+ checks passed; speed not graded \(no GPU\)$' "$tmp/grade.txt")
oks=$(grep -cE ' OK    \(' "$tmp/grade.txt")
skips=$(grep -cE ' SKIP  \(.*skipped: CPU emulation' "$tmp/grade.txt")
worse=$(grep -E ' (FAIL|ERROR) |build failed|not found' "$tmp/grade.txt" | head -5)
if [ "$status" = 1 ] && [ "$graded" = "$want" ] && [ -z "$worse" ] && [ "$skips" -ge "$want" ] && [ "$oks" -gt 0 ]; then
    ok "in the kit, grader/driver/grade.sh EMU=1 LAB=$labs: $oks correctness checks OK in $graded labs, $skips speed checks skipped, each lab not started (the untouched skeleton earns nothing), exit status 1 ($secs s, build included; $tools_from)"
else
    bad "in the kit, grader/driver/grade.sh EMU=1 LAB=$labs: exit status $status (expected 1: the untouched skeletons are not started), $graded of $want labs graded as not started, $skips speed checks skipped${worse:+, failures: $worse}; output: $tmp/grade.txt"
    tail -30 "$tmp/grade.txt"
fi
refs=$(cd "$kit" && ls build/emu/.grader/*/reference.so 2>/dev/null | wc -l)
[ "$refs" = "$want" ] && ok "the kit linked $refs references from prebuilt/emu/ (and a program against each: every symbol resolves with this g++)" ||
    bad "the kit linked $refs references, expected $want"

# The GPU build of lab 01's reference, for one architecture as on a GPU machine (no GPU needed
# to link): the prebuilt fat object checked and linked behind the lab's shim. (What else the
# lab's GPU build makes, the harness, the workers and the student's object, is the checkout's
# sources built by the checkout's rules, as test-build builds them.)
ref_so=build/gpu/.grader/coalescing/reference.so
arch=sm_$(. "$kit/prebuilt/BUILDINFO" && echo "${KIT_FAT_ARCHS%% *}") # (read as check-prebuilt.sh reads it)
(cd "$kit" && make --no-print-directory "$ref_so" MODE=gpu CUDA_ARCH=$arch) >"$tmp/gpu-build.txt" 2>&1 &&
    grep -q '^  PREBUILT prebuilt/gpu/01-coalescing/coalescing.o' "$tmp/gpu-build.txt" &&
    [ -s "$kit/$ref_so" ] &&
    ok "in the kit, the GPU build of lab 01's reference (CUDA_ARCH=$arch) links the prebuilt fat object" ||
    { bad "in the kit, the GPU build of lab 01's reference (CUDA_ARCH=$arch): see $tmp/gpu-build.txt"; tail -15 "$tmp/gpu-build.txt"; }

# An emulator object that this g++ cannot link (one symbol a newer compiler's runtime might
# have): the build stops with one error line that names what is missing, and grading says so.
obj=$kit/prebuilt/emu/01-coalescing/coalescing.o
cp "$obj" "$tmp/coalescing.o"
printf 'void __ubsan_handle_from_another_gcc(void);\nvoid kit_probe(void) { __ubsan_handle_from_another_gcc(); }\n' >"$tmp/other.c"
if cc -c -fPIC "$tmp/other.c" -o "$tmp/other.o" && ld -r "$tmp/coalescing.o" "$tmp/other.o" -o "$obj"; then
    rm -rf "$kit/build/emu/pic/solutions/coalescing.o" "$kit/build/emu/.grader/coalescing/reference.so"
    (cd "$kit" && grader/driver/grade.sh EMU=1 LAB=01) >"$tmp/grade-other.txt" 2>&1
    line=$(grep -E '^ +\| error: this .* cannot link the prebuilt reference .*__ubsan_handle_from_another_gcc' "$tmp/grade-other.txt")
    [ -n "$line" ] && ok "a prebuilt object this g++ cannot link: the build says so in one line: ${line#*| }" ||
        { bad "a prebuilt object this g++ cannot link should stop the build with one error line"; head -12 "$tmp/grade-other.txt"; }
    cp "$tmp/coalescing.o" "$obj"
else
    bad "could not make the unlinkable object for the g++ check"
fi

# ---- What needs the sources says so, in one line -------------------------------------------
one_line() { # one_line WHAT COMMAND...: fails with one line that names the student kit
    local what=$1 out st
    shift
    out=$(cd "$kit" && "$@" 2>&1)
    st=$?
    if [ $st -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s' "$out" | grep -q 'student kit'; then
        ok "$what stops: $out"
    else
        bad "$what should stop with one line naming the student kit; exit $st, output: $(printf '%s' "$out" | head -5)"
    fi
}
one_line "make grade STUDENT=solutions" make --no-print-directory grade STUDENT=solutions
one_line "make gradescope-kit" make --no-print-directory gradescope-kit
one_line "make dist" make --no-print-directory dist
one_line "tests/check-steps.sh" tests/check-steps.sh

echo "student kit: $pass passed, $fail failed"
if [ $fail -eq 0 ]; then rm -rf "$tmp"; else echo "the unpacked kit is kept in $tmp"; fi
[ $fail -eq 0 ]
