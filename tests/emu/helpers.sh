#!/usr/bin/env bash
# helpers.sh - a student's own helper files, graded under the CPU emulator (lab 01): the build
# knows every one the compile read, at any depth; none stands where the toolkit's, the
# workbook's or the system's headers are looked up; no link is followed; '..' only inside the
# lab's folder.
#   1. a fix in a helper two folders down (kern/detail/op.cuh through kern/launch.cuh) is
#      graded: a helper that appears, one that goes and one that changes each build again
#   2. one file (STUDENT=.../coalescing.cu LAB=01) with headers of its own named like the
#      toolkit's, the system's and the workbook's: a correct file keeps its points and no such
#      header is read; a kernel that calls a host function is refused though nvcc would fail
#      on every file with its cuda_runtime.h
#   3. a hard link (to a file only root may read), a symbolic link, a linked folder: refused,
#      the text never in the log; graded as root, a tree is read with its owner's rights
#   4. "../params.h" from a subfolder builds; an include that leaves the lab's folder is
#      refused with the rule, the file and the include named
#
#   tests/emu/helpers.sh [--gpu]   (MAKE and BUILD from the environment; after make emu-runners,
#                                  or make all for --gpu: graded on this machine's GPU)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
emu=EMU=1 work=${BUILD:-build}/helpers-test
[ "${1:-}" = --gpu ] && emu=EMU= work=${BUILD:-build}/helpers-test-gpu
. tests/result.sh
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
grade() { # NAME STUDENT: make grade of lab 01, its output in $work/NAME.txt
    ${MAKE:-make} --no-print-directory grade $emu LAB=01 STUDENT="$2" GRADE_DIR="$work/grade-$1" \
        GRADE_WHERE=0 SEED=0x1234 >"$work/$1.txt" 2>&1
}
summary() { grep -E '^  coalescing: ' "$work/$1.txt" | tail -1; }
# check lines other than speed's that say V (a count: no `grep -q` at a pipe's end, whose early
# exit would fail the pipe under pipefail)
lines_saying() { grep -vE '^  speed' "$work/$1.txt" | grep -cE " ($2) "; }
# every correctness check OK (the speed check's verdict aside: under the emulator speed is not
# graded, on a GPU these simple kernels may be short of the mark)
full() { [ -n "$(summary "$1")" ] && [ "$(lines_saying "$1" OK)" -gt 0 ] &&
         [ "$(lines_saying "$1" 'FAIL|ERROR')" -eq 0 ]; }
# a correctness check failed, or the build refused the file: no point can be earned
none() { [ -n "$(summary "$1")" ] && [ "$(lines_saying "$1" FAIL)" -gt 0 ]; }
lab_file() { # the lab file of the trees below: its kernel in kern/launch.cuh
    cat <<'CU'
#include "coalescing.h"
#include "kern/launch.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    launch_rows(out, in, scale, bias, rows, cols, stream);
}
CU
}

# 1. the build knows every helper, at any depth
t1=$work/t1/01-coalescing
mkdir -p "$t1/kern/detail"
lab_file >"$t1/coalescing.cu"
echo '#define THREADS 256' >"$t1/params.h"
cat >"$t1/kern/launch.cuh" <<'CU'
#include "../params.h"
#include "detail/op.cuh"
template <typename T>
__global__ void scale_rows(T *out, const T *in, const T *scale, const T *bias, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)rows * cols)
        out[i] = op(in[i], scale[i / cols], bias[i / cols]);
}
static void launch_rows(float *out, const float *in, const float *scale, const float *bias,
                        int rows, int cols, cudaStream_t stream)
{
    const size_t n = (size_t)rows * cols;
    scale_rows<float><<<(unsigned)((n + THREADS - 1) / THREADS), THREADS, 0, stream>>>(out, in, scale, bias, rows, cols);
}
CU
cat >"$t1/kern/detail/op.cuh" <<'CU'
#include "../../params.h"
#include "fix.h"
__device__ inline float op(float x, float s, float b)
{
#ifdef FIXED
    return x * s + b;
#else
    return x * s - b; /* the bug */
#endif
}
CU
grade t1-bug "$work/t1"
none t1-bug && grep -q ' FAIL ' "$work/t1-bug.txt"
result "a tree whose helper two folders down has a bug: built ('../params.h' inside the lab's folder), a check fails" $? "$(summary t1-bug); see $work/t1-bug.txt"
echo '#define FIXED 1' >"$t1/kern/detail/fix.h"
grade t1-fix-appears "$work/t1"
full t1-fix-appears
result "... the fix in a helper that was not there (fix.h made): built again, every correctness check OK" $? "$(summary t1-fix-appears); see $work/t1-fix-appears.txt"
rm "$t1/kern/detail/fix.h"
grade t1-fix-gone "$work/t1"
none t1-fix-gone
result "... that helper removed: built again, a check fails" $? "$(summary t1-fix-gone); see $work/t1-fix-gone.txt"
sed -i -e 's/return x \* s - b; \/\* the bug \*\//return x * s + b;/' -e '/#include "fix.h"/d' "$t1/kern/detail/op.cuh"
grade t1-fix-deep "$work/t1"
full t1-fix-deep
result "... the fix made in kern/detail/op.cuh itself: built again, every correctness check OK" $? "$(summary t1-fix-deep); see $work/t1-fix-deep.txt"
# (the student's object: build/MODE/STUDENT's path with / as _/coalescing/student.so)
so=${BUILD:-build}/$([ "$emu" = EMU=1 ] && echo emu || echo gpu)/$(echo "$work/t1" | tr / _)/coalescing/student.so
before=$(stat -c %Y.%y "$so" 2>/dev/null)
grade t1-again "$work/t1"
[ -n "$before" ] && [ "$(stat -c %Y.%y "$so" 2>/dev/null)" = "$before" ] && full t1-again
result "... graded again unchanged: not built again ($so kept), every correctness check OK" $? "see $work/t1-again.txt"

# 2. no student file where the toolkit's, the workbook's or the system's headers are looked up
shadow_includes() { # every name a student might shadow, included where it compiles to nothing
    printf '#if 0\n'
    for h in cuda_runtime.h stdio.h check.h coalescing.h cuda.h include/stdio.h include/cuda_runtime.h include/check.h; do
        printf '#include "%s"\n' "$h"
    done
    printf '#endif\n'
}
shadow_headers() { # DIR: each of those names a header that stops any compile reading it
    mkdir -p "$1/include"
    for h in cuda_runtime.h stdio.h check.h coalescing.h cuda.h include/stdio.h include/cuda_runtime.h include/check.h; do
        echo "#error SHADOWED-BY-THE-STUDENT $h" >"$1/$h"
    done
}
s1=$work/s1
mkdir -p "$s1"
{ shadow_includes; cat solutions/01-coalescing/coalescing.cu; } >"$s1/coalescing.cu"
shadow_headers "$s1"
grade s1 "$s1/coalescing.cu"
full s1 && ! grep -q 'SHADOWED-BY-THE-STUDENT' "$work/s1.txt" "$work/grade-s1/coalescing.build.log"
result "one file with headers named cuda_runtime.h, stdio.h, check.h, coalescing.h, include/stdio.h beside it: every correctness check OK, none read" $? "$(summary s1); see $work/s1.txt"
s2=$work/s2
mkdir -p "$s2"
{ shadow_includes; sed -n '/^#include <utility>/,$p' tests/cheats/h101-coalescing-host-function-in-kernel.cu; } >"$s2/coalescing.cu"
shadow_headers "$s2"
grade s2 "$s2/coalescing.cu"
grep -qE 'does not build for a GPU|calling a __host__ function' "$work/s2.txt" && none s2 && ! grep -q 'nvcc cannot compile here' "$work/s2.txt"
result "... a kernel calling a host function beside its own cuda_runtime.h: refused (does not build for a GPU), a check fails" $? "$(summary s2); see $work/s2.txt"
s3=$work/s3
mkdir -p "$s3"
{ lab_file | sed 's|kern/launch.cuh|mine.cuh|'; } >"$s3/mine.cu"
printf '#include <cuda_runtime.h>\nstatic void launch_rows(float *, const float *, const float *, const float *, int, int, cudaStream_t) { this_is_not_declared(); }\n' >"$s3/mine.cuh"
grade s3 "$s3/mine.cu"
grep -qE "$s3/mine.cuh(:2:|\\(2\\))" "$work/s3.txt" && grep -qF "$s3/mine.cu" "$work/s3.txt" && ! grep -q '01-coalescing/mine' "$work/s3.txt"
result "one file (STUDENT=.../mine.cu): the compiler's errors name its helper and it where they are, not where the sandbox held them" $? "see $work/s3.txt"
t2=$work/t2/01-coalescing
mkdir -p "$t2"
{ shadow_includes; sed -n '/^#include <utility>/,$p' tests/cheats/h101-coalescing-host-function-in-kernel.cu; } >"$t2/coalescing.cu"
shadow_headers "$t2"
grade t2 "$work/t2"
grep -qE 'does not build for a GPU|calling a __host__ function' "$work/t2.txt" && none t2
result "... the same as a tree: refused" $? "$(summary t2); see $work/t2.txt"

# 3. no link followed, no file read with rights the student has not
link_tree() { # NAME: a tree whose lab file includes "h.cuh" (its kernel), made by the caller
    mkdir -p "$work/$1/01-coalescing"
    lab_file | sed 's|kern/launch.cuh|h.cuh|' >"$work/$1/01-coalescing/coalescing.cu"
}
secret=$work/secret.cuh
printf '#error THE-SECRET-TEXT\n' >"$secret"
chmod 0600 "$secret"
link_tree l1
ln "$secret" "$work/l1/01-coalescing/h.cuh" 2>/dev/null
if [ -e "$work/l1/01-coalescing/h.cuh" ]; then
    grade l1 "$work/l1"
    grep -q 'h.cuh.*hard link' "$work/l1.txt" && none l1 && ! grep -rq 'THE-SECRET-TEXT' "$work/l1.txt" "$work/grade-l1"
    result "a helper that is a hard link (to a file only its owner may read): refused, its text never shown" $? "see $work/l1.txt"
else
    result "a helper that is a hard link: (this file system refused the link; not tried)" 0
fi
link_tree l2
cp "$work/l2/01-coalescing/coalescing.cu" "$work/lab-file.cu"
rm "$work/l2/01-coalescing/coalescing.cu" && ln "$work/lab-file.cu" "$work/l2/01-coalescing/coalescing.cu"
grade l2 "$work/l2"
grep -q 'coalescing.cu is a hard link' "$work/l2.txt" && none l2
result "a lab file that is a hard link: refused" $? "see $work/l2.txt"
link_tree l3
ln -s "$secret" "$work/l3/01-coalescing/h.cuh"
grade l3 "$work/l3"
grep -q 'h.cuh.*symbolic link' "$work/l3.txt" && none l3 && ! grep -rq 'THE-SECRET-TEXT' "$work/l3.txt" "$work/grade-l3"
result "a helper that is a symbolic link: refused, its target never read" $? "see $work/l3.txt"
mkdir -p "$work/l4/01-coalescing" "$work/elsewhere/kern"
lab_file >"$work/l4/01-coalescing/coalescing.cu"
cp "$t1/kern/launch.cuh" "$work/elsewhere/kern/" && ln -s "$work/elsewhere/kern" "$work/l4/01-coalescing/kern"
grade l4 "$work/l4"
grep -q 'kern/launch.cuh.*a folder on its way is a link' "$work/l4.txt" && none l4
result "a helper reached through a folder that is a symbolic link: refused" $? "see $work/l4.txt"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    link_tree l5
    printf '#error THE-SECRET-TEXT\n' >"$work/l5/01-coalescing/h.cuh"
    chmod 0600 "$work/l5/01-coalescing/h.cuh"
    chown -R nobody "$work/l5" && chown root "$work/l5/01-coalescing/h.cuh"
    grade l5 "$work/l5"
    grep -q 'h.cuh.*your own rights do not let it be read' "$work/l5.txt" && none l5 &&
        ! grep -rq 'THE-SECRET-TEXT' "$work/l5.txt" "$work/grade-l5"
    result "graded as root: a helper its tree's owner may not read (root's, 0600) is refused, never read" $? "see $work/l5.txt"
fi

# 4. '..' only inside the lab's folder
mkdir -p "$work/d1/01-coalescing" "$work/d1/other"
lab_file | sed 's|kern/launch.cuh|../other/launch.cuh|' >"$work/d1/01-coalescing/coalescing.cu"
cp "$t1/kern/launch.cuh" "$work/d1/other/"
grade d1 "$work/d1"
grep -qF 'coalescing.cu includes "../other/launch.cuh", which leaves your lab'"'"'s folder' "$work/d1.txt" && none d1
result "an include that leaves the lab's folder (../other/launch.cuh): refused with the rule, the file and the include named" $? "see $work/d1.txt"
[ "$fail" -gt 0 ] || rm -rf "$work"
results
