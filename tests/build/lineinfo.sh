#!/usr/bin/env bash
# lineinfo.sh - the student's GPU build carries -lineinfo (a fault's report and a profiler can
# name the source line), and it changes no machine code: each lab's reference (a student kit's
# skeleton), compiled for one architecture with -O3 and again with -lineinfo added, has
# byte-identical code in every kernel's .text section. (-lineinfo adds line tables only; this holds it to that on
# the toolkit at hand.)
#
#   NVCC=path ARCH=sm_90 tests/build/lineinfo.sh
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
work=${BUILD:-build}/lineinfo-test
rm -rf "$work" && mkdir -p "$work"
. tests/result.sh

# The flags the student's file is compiled with (the Makefile's student_cc_gpu, as make -n says it)
flags=$(${MAKE:-make} --no-print-directory -s -f Makefile -f - print-student-cc MODE=gpu \
    <<<'print-student-cc: ; @echo "student_cc: $(student_cc_gpu)"' 2>/dev/null | sed -n 's/^student_cc: //p')
case " $flags " in *" -lineinfo "*) r=0 ;; *) r=1 ;; esac
result "the student's GPU build is compiled with -lineinfo" $r "its compiler and flags: $flags"

# .text.* sections of a cubin, each as its name and the sha256 of its bytes
sections() {
    readelf -W -S "$1" 2>/dev/null | awk '$2 ~ /^\.text\./ { print $2 }' | while read -r s; do
        printf '%s %s\n' "$s" "$(objcopy -O binary --only-section="$s" "$1" /dev/stdout 2>/dev/null | sha256sum | cut -d' ' -f1)"
    done
}
# Each lab's graded file, NN-name/name.cu (a student kit has no solution sources: its skeletons
# then); not the tools beside a reference (lab 09's tune.cu, which grading never builds).
top=solutions
[ -e solutions/01-coalescing/coalescing.cu ] || top=labs
# LINEINFO_LABS="01-coalescing ...": those labs only (make test's quick tier: its one lab)
for dir in $(if [ -n "${LINEINFO_LABS:-}" ]; then printf "$top/%s/ " $LINEINFO_LABS; else echo "$top"/[0-9][0-9]-*/; fi); do
    d=$(basename "$dir")
    name=${d#[0-9][0-9]-}
    src=$top/$d/$name.cu
    inc="-Igrader/labs/$d -I$(dirname "$src") -Icommon -Igrader"
    built=0
    for li in with without; do
        "$nvcc" -cubin -arch="$arch" -O3 -std=c++17 $([ $li = with ] && echo -lineinfo) $inc \
            -o "$work/$name.$li.cubin" "$src" 2>"$work/$name.$li.log" && built=$((built + 1))
        sections "$work/$name.$li.cubin" >"$work/$name.$li.txt"
    done
    n=$(wc -l <"$work/$name.with.txt")
    # (a file with no kernel of its own, as lab 05's reference, has no .text section to compare)
    [ "$built" = 2 ] && cmp -s "$work/$name.with.txt" "$work/$name.without.txt"
    result "$d/$name.cu: the same machine code with -lineinfo ($n kernel sections)" $? \
        "$(diff "$work/$name.with.txt" "$work/$name.without.txt" | head -3 | tr '\n' ' ')$(tail -2 "$work/$name.with.log")"
done
results
