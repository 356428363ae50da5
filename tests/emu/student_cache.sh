#!/usr/bin/env bash
# student_cache.sh - the tests' cache of student objects (grader/make/student_cache.py) gives a file the
# object of a byte-identical compile only: the same lab file in two trees compiles once (the
# second takes the first's object, byte for byte, and its messages); a tree whose lab folder holds
# one byte more elsewhere (a helper the file does not even include), or a file one byte longer,
# compiles on its own; a file that names the cache folder cannot read it from its compile (the
# folder is hidden from the sandbox), so no file reaches another's entry.
#
#   BUILD=build MAKE=make tests/emu/student_cache.sh     (after the emulated build: make emu-runners)
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/result.sh
build=${BUILD:-build}
work=$build/tests/cache-test
rm -rf "$work" && mkdir -p "$work"
export STUDENT_CACHE=$PWD/$work/cache
mkdir -p "$STUDENT_CACHE"
lab=01-coalescing
# compile TREE: lab 01 of TREE built under the emulator through the cache; prints the log's verdict
compile() {
    ${MAKE:-make} -s --no-print-directory runner-coalescing EMU=1 STUDENT="$1" >"$1.out" 2>&1 || { echo failed; return; }
    awk -F'\t' -v t="$(basename "$1")" 'index($4, "/" t "/") || index($4, "_" t "/") { v = $1 } END { print v }' "$STUDENT_CACHE/log.tsv"
}
obj() { echo "$build/emu/$(echo "$1" | tr / _)/coalescing/student.so"; }
for t in a b c d e; do mkdir -p "$work/$t" && cp -r "labs/$lab" "$work/$t/"; done
echo '/* a helper nobody includes */' >"$work/c/$lab/extra.h"
echo '// one more line' >>"$work/d/$lab/coalescing.cu"
{ cat "labs/$lab/coalescing.cu"; echo "#include \"$STUDENT_CACHE/log.tsv\""; } >"$work/e/$lab/coalescing.cu"

a=$(compile "$work/a") b=$(compile "$work/b")
[ "$a" = compiled ] && [ "$b" = hit ]
result "the same file in a second tree takes the first's object (first: $a, second: $b)" $?
cmp -s "$(obj "$work/a")" "$(obj "$work/b")" && cmp -s "$build/emu/$(echo "$work/a" | tr / _)/coalescing/source.cu" "$build/emu/$(echo "$work/b" | tr / _)/coalescing/source.cu"
result "... its student.so and source.cu byte for byte the first's" $?
c=$(compile "$work/c")
[ "$c" = compiled ]
result "a lab folder with one more file (not included) compiles on its own (got: $c)" $?
d=$(compile "$work/d")
[ "$d" = compiled ]
result "a file one line longer compiles on its own (got: $d)" $?
compile "$work/e" >/dev/null
grep -q "log.tsv" "$work/e.out" && ! [ -e "$(obj "$work/e")" ]
result "a file that includes the cache's log cannot read it from its compile (the build fails)" $? "see $work/e.out"
n=$(find "$STUDENT_CACHE" -name student.o | wc -l)
[ "$n" = 3 ]
result "three entries kept, one a file compiled (found $n)" $?
results "the cache of student objects"
