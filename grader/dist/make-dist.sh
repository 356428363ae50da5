#!/usr/bin/env bash
# make-dist.sh - the student kit: make dist (grader/dist/dist.mk builds the objects first).
#
#   grader/dist/make-dist.sh DIST NAME OBJDIR LABDIR...
#
# DIST/NAME/ gets this checkout's tracked Makefile, README.md, .gitignore, labs, grader,
# common, tests and slides; prebuilt/ gets each lab's reference objects from OBJDIR
# (OBJDIR/gpu/NN-name/name.o and OBJDIR/emu/NN-name/name.o) with BUILDINFO and README.md;
# solutions/ holds only a README that says where the references are. DIST/NAME.tar.gz is
# what students get (reproducible: sorted, no owners, the last commit's date).
# Environment: NVCC, EMU_CXX (the compilers that made the objects), FAT_ARCHS.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$1 name=$2 obj=$3
shift 3
labs=("$@")

git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    { echo "make dist: not a git checkout: the kit is made of the workbook's tracked files" >&2; exit 2; }
stage=$dist/$name
tgz=$dist/$name.tar.gz
rm -rf "$stage" "$tgz"
mkdir -p "$stage"
git ls-files -z -- Makefile README.md .gitignore labs grader common tests slides |
    tar --null -T - -cf - | tar -xf - -C "$stage"

nvcc=${NVCC:-nvcc}
cxx=${EMU_CXX:-g++}
cuda=$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
cuda_mm=${cuda%.*}
gxx_version=$("$cxx" -dumpfullversion 2>/dev/null || "$cxx" -dumpversion)
gxx_major=${gxx_version%%.*}
gxx=$("$cxx" --version | head -1)
archs=${FAT_ARCHS:?}
newest=${archs##* }
machine=$(uname -m)

mkdir -p "$stage/prebuilt" "$stage/solutions"
for d in "${labs[@]}"; do
    n=${d#*-}
    for m in gpu emu; do
        [ -s "$obj/$m/$d/$n.o" ] || { echo "make dist: $obj/$m/$d/$n.o is missing" >&2; exit 1; }
        mkdir -p "$stage/prebuilt/$m/$d"
        cp "$obj/$m/$d/$n.o" "$stage/prebuilt/$m/$d/$n.o"
    done
done

# KEY="value" lines (a shell reads them; values hold no quote, $ or backslash)
field() { printf '%s="%s"\n' "$1" "$(printf '%s' "$2" | tr -d '"$`\\')"; }
{
    echo "# prebuilt/BUILDINFO - how the prebuilt reference objects were made (make dist wrote it;"
    echo "# grader/dist/check-prebuilt.sh reads it)."
    field KIT_MACHINE "$machine"
    field KIT_CUDA_VERSION "$cuda"
    field KIT_FAT_ARCHS "$archs"
    field KIT_GXX_VERSION "$gxx_version"
    field KIT_GXX "$gxx"
    field KIT_LABS "${labs[*]}"
    field KIT_COMMIT "$(git describe --always --dirty)"
} >"$stage/prebuilt/BUILDINFO"

cat >"$stage/prebuilt/README.md" <<EOF
# The prebuilt reference solutions

This kit grades your labs against each lab's reference solution without its source: the
reference is here as compiled objects, which \`make grade\` builds in where the workbook
compiles \`solutions/NN-name/name.cu\`. Both are $machine Linux code.

- \`gpu/NN-name/name.o\`, for grading on a GPU: made by nvcc $cuda (CUDA $cuda_mm), with machine
  code for every architecture from sm_${archs%% *} to sm_$newest and PTX for newer GPUs. It needs
  the CUDA $cuda_mm toolkit or a newer ${cuda_mm%%.*}.x, and a driver that supports it.
- \`emu/NN-name/name.o\`, for checking correctness on the CPU emulator (no GPU, or \`EMU=1\`):
  C++ compiled by $gxx, with sanitizer instrumentation. It needs
  **g++ $gxx_major** with its AddressSanitizer and UndefinedBehaviorSanitizer libraries: on
  Debian and Ubuntu the \`g++-$gxx_major\` package, which brings \`libasan\` and \`libubsan\`.
  Where your \`g++\` is another version, install g++ $gxx_major and grade with
  \`make grade EMU_CXX=g++-$gxx_major EMU_CC=gcc-$gxx_major\`.

The build checks both before it uses them: when your toolkit or g++ cannot link an object,
it stops with a line that starts with \`error:\` and says what to install.
\`BUILDINFO\` records the same facts for that check.

The ladder rungs that the lessons link to (\`solutions/NN-name/steps/\`) are not in this kit,
as sources or objects: \`make bench\` times your code, the reference and the hardware's
ceiling.
EOF

# The lessons' links to a reference or a rung lead, in the kit, to the README below (the link's
# text still names the file, so the learner knows what to look for in the full workbook).
find "$stage" \( -name '*.md' -o -name '*.ipynb' \) -not -path "$stage/solutions/*" -print0 |
    xargs -0 sed -i -E 's#\]\(((\.\./)*)solutions/[^)]*\)#](\1solutions/README.md)#g'

cat >"$stage/solutions/README.md" <<'EOF'
# Reference solutions

The sources of the reference solutions and of the ladder rungs are not in this kit: where a
lesson links to one (a rung, a reference, `tune.cu`), the link brings you here, and the file it
names is in the full workbook, which your instructor can point you to. Grading uses each
reference as a prebuilt object (`prebuilt/`, see its README), so `make grade` works as described
in the top README; `make grade STUDENT=solutions` and the tests that grade the solutions say that
they need the sources, and stop.
EOF

# The objects are *.o, which .gitignore leaves out of a repository: keep them in one.
printf '\n# The student kit: the prebuilt reference objects belong in a repository of it.\n!/prebuilt/**\n' \
    >>"$stage/.gitignore"

epoch=$(git log -1 --format=%ct)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$dist" -cf - "$name" |
    gzip -n -9 >"$tgz"
files=$(find "$stage" -type f | wc -l)
echo "make dist: $tgz ($(du -k "$tgz" | cut -f1) KiB, $files files): labs, grader, common, tests,"
echo "  slides and each lab's reference prebuilt (CUDA $cuda_mm, sm_${archs%% *}-sm_$newest + PTX; g++ $gxx_version for the"
echo "  emulator), without solution sources or ladder rungs. Students unpack it and run make grade."
