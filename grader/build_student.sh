#!/bin/sh
# build_student.sh - runs INSIDE the compile sandbox (grader/sandbox_run.c, started by the
# Makefile): compile the student's file, then vet the object (vet.sh, copied beside it).
#
#   build_student.sh LAB SRC OUT "ENTRY POINTS" "FORBIDDEN" "SASS REGEX" "PTX REGEX" COMPILER ARGS...
#
# The compiler and its flags come last; the object is compiled to OUT.raw, vetted into OUT.
# With a PTX regex, PTX_COMPILE (the compiler and flags for PTX of compute_90) writes OUT.ptx
# for vet.sh to read. Everything here sees only the sandbox's view: the student's file, the
# contract headers in include/, the toolkit and the system.
set -eu
lab=$1 src=$2 out=$3 entries=$4 forbidden=$5 sass=$6 ptx_re=$7
shift 7
"$@" -c "$src" -o "$out.raw"
ptx=""
if [ -n "$ptx_re" ]; then
    # shellcheck disable=SC2086
    $PTX_COMPILE -ptx "$src" -o "$out.ptx"
    ptx=$out.ptx
fi
exec sh ./vet.sh "$lab" "$out.raw" "$out" "$entries" "$forbidden" "$sass" "$ptx" "$ptx_re"
