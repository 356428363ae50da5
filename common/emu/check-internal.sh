#!/bin/sh
# check-internal.sh -- refuse a shared object that names the CPU emulator's own internals.
#
#   common/emu/check-internal.sh INTERNAL_LIST OBJECT.so
#
# INTERNAL_LIST is libcudaemu.internal (common/emu/emu.mk): the library's hidden symbols, the
# engine behind the CUDA API (its settings, scheduler, race checker, and cuda_emu/testing.h's
# switches). Compiled CUDA code never calls them and a GPU has none of them; a program that
# loads OBJECT (the grader's worker) does not export them, so OBJECT would not even load.
# Saying so at the link, with the names, beats a loader's "undefined symbol". Exit 0 when
# OBJECT names none of them, 1 (with a message on stderr) when it does.
set -u
list=$1 so=$2
[ -r "$list" ] || { echo "check-internal.sh: cannot read $list" >&2; exit 2; }
used=$(nm -D --undefined-only "$so" 2>/dev/null | awk '{ print $NF }' | sort -u | comm -12 - "$list")
[ -z "$used" ] && exit 0
echo "error: $so names the CPU emulator's own engine, which CUDA code never calls (it does not" >&2
echo "  exist on a GPU; here it would switch off or steer the checks that grade your code):" >&2
printf '%s\n' "$used" | c++filt | sed 's/^/    /' | head -20 >&2
echo "  Remove those calls; use only the CUDA API (cuda_runtime.h, cooperative_groups.h ...)." >&2
exit 1
