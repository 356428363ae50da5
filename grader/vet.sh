#!/bin/sh
# vet.sh - admit a student object into a runner, or reject it with the symbol that is wrong.
#
#   vet.sh LAB OBJECT OUTPUT "ENTRY POINTS" HARNESS_SYMBOLS_FILE "FORBIDDEN REGEXES" "SASS REGEX"
#          [PTX_FILE "PTX REGEX"]
#
# A student object may define its lab's entry points and its own helpers, nothing that
# belongs to the C library, the CUDA runtime or driver, or the grader's harness (defining
# those would replace them: interposition). It may not call into the reference solution, load
# code at run time (dlopen), start processes, or call what the lab forbids (a library that
# does the work). Where the lab forbids instructions (tensor cores in SGEMM), its device code
# is disassembled and searched. On success OUTPUT is the object with every strong symbol but
# the entry points made local, so no helper name can clash with the harness or the reference.
set -eu
lab=$1 obj=$2 out=$3 entries=$4 harness_syms=$5 forbidden=${6:-} sass_forbidden=${7:-}
ptx_file=${8:-} ptx_forbidden=${9:-}
NM=${NM:-nm} OBJCOPY=${OBJCOPY:-objcopy} CUOBJDUMP=${CUOBJDUMP:-cuobjdump}

reject() {
    echo "rejected: $obj: $*" >&2
    echo "rejected: lab $lab takes only your own kernels and the entry point(s) '$entries'." >&2
    exit 1
}

# Names the C library exports (interposing them would fake the harness's view of the world).
libc_syms() {
    libc=$(${CC:-cc} -print-file-name=libc.so.6 2>/dev/null || true)
    [ -f "$libc" ] && $NM -D --defined-only "$libc" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//'
    return 0
}

defined=$($NM -g --defined-only "$obj" | awk '{print $3}')
# Strong definitions only: weak ones (inline functions, template instances, compiler runtime
# references) are merged by the linker and cannot replace anything.
strong=$($NM -g --defined-only "$obj" | awk '$2 ~ /^[TDBRCGSi]$/ {print $3}')
undefined=$($NM -u "$obj" | awk '{print $NF}')
tmp=${TMPDIR:-/tmp}/vet.$$
trap 'rm -f "$tmp".*' EXIT
libc_syms | sort -u >"$tmp.libc"

for s in $defined; do
    case " $entries " in *" $s "*) continue ;; esac
    case $s in
    cuda* | __cuda* | cu[A-Z]*)
        reject "it defines '$s', a name of the CUDA runtime or driver. Rename your function." ;;
    ref_*)
        reject "it defines '$s'; names starting with ref_ belong to the reference solution." ;;
    esac
    if grep -qx -- "$s" "$tmp.libc"; then
        reject "it defines '$s', a function of the C library. Rename yours (make it static)."
    fi
done
for s in $strong; do
    case " $entries " in *" $s "*) continue ;; esac
    if [ -f "$harness_syms" ] && grep -qx -- "$s" "$harness_syms"; then
        reject "it defines '$s', which belongs to the grader's harness. Rename yours."
    fi
done

for e in $entries; do
    echo "$defined" | grep -qx -- "$e" ||
        reject "it does not define '$e' (extern \"C\", with the contract's signature)."
done

for s in $undefined; do
    case $s in
    ref_*) reject "it calls '$s', the reference solution. Write your own." ;;
    dlopen | dlsym | dlvsym | dlmopen | system | popen | fork | vfork | posix_spawn* | exec[lv]* | ptrace | kill | syscall)
        reject "it calls '$s', which a lab has no use for (loading code or starting processes)." ;;
    esac
done

if [ -n "$forbidden" ]; then
    # every symbol, local ones too: an inlined library call leaves only local kernel stubs
    hit=$($NM "$obj" | awk '{print $NF}' | grep -E -m1 -- "$forbidden" || true)
    [ -z "$hit" ] || reject "it uses '$hit', which lab $lab forbids: the point is to write it yourself."
fi

# The PTX (compiled for compute_90, so code behind __CUDA_ARCH__ >= 800 guards shows) always;
# the SASS where cuobjdump is installed (CUDA's own packages have it, some CI images not).
if [ -n "$ptx_forbidden" ] && [ -n "$ptx_file" ]; then
    hit=$(grep -E -m1 -o -- "$ptx_forbidden" "$ptx_file" || true)
    [ -z "$hit" ] || reject "its device code contains the PTX instruction '$hit', which lab $lab forbids."
fi
if [ -n "$sass_forbidden" ] && command -v "$CUOBJDUMP" >/dev/null 2>&1; then
    hit=$($CUOBJDUMP -sass "$obj" 2>/dev/null | grep -E -m1 -o -- "$sass_forbidden" || true)
    [ -z "$hit" ] || reject "its device code contains '$hit' instructions, which lab $lab forbids."
fi

# Make every strong symbol but the entry points local. Weak ones stay global so the linker
# can merge them; the runner links this object last, so the harness's copy of any shared
# inline function is the one kept.
localize=""
for s in $strong; do
    case " $entries " in *" $s "*) continue ;; esac
    localize="$localize --localize-symbol=$s"
done
# shellcheck disable=SC2086
$OBJCOPY $localize "$obj" "$out"
