#!/bin/sh
# vet.sh - the friendly first line: admit a student object, or reject it with a clear reason.
#
#   vet.sh LAB OBJECT OUTPUT "ENTRY POINTS" "FORBIDDEN REGEX" "SASS REGEX" [PTX_FILE "PTX REGEX"]
#
# It is not what keeps grading honest: the student's code runs in a sandboxed process of its
# own that holds nothing of the grader (see README.md). Vetting catches, at build time and
# with a message that names the symbol, what the lab does not allow: a missing entry point,
# loading code or starting processes, a library that does the work (CUB in the reduction,
# cuBLAS in SGEMM), instructions the lab forbids (tensor cores in SGEMM). A lab that forbids
# instructions needs cuobjdump to read the machine code; without it the object is rejected
# (fail closed), never admitted unread.
#
# On success OUTPUT is the object with every strong symbol but the entry points made local,
# so no helper name of the student's can meet a name of the shim's.
set -eu
lab=$1 obj=$2 out=$3 entries=$4 forbidden=${5:-} sass_forbidden=${6:-}
ptx_file=${7:-} ptx_forbidden=${8:-}
NM=${NM:-nm} OBJCOPY=${OBJCOPY:-objcopy} CUOBJDUMP=${CUOBJDUMP:-cuobjdump}

reject() {
    echo "rejected: $obj: $*" >&2
    echo "rejected: lab $lab takes your own kernels and the entry point(s) '$entries'." >&2
    exit 1
}

defined=$($NM -g --defined-only "$obj" | awk '{print $3}')
# Strong definitions only: weak ones (inline functions, template instances) are merged.
strong=$($NM -g --defined-only "$obj" | awk '$2 ~ /^[TDBRCGSi]$/ {print $3}')
undefined=$($NM -u "$obj" | awk '{print $NF}')

for e in $entries; do
    echo "$defined" | grep -qx -- "$e" ||
        reject "it does not define '$e' (extern \"C\", with the contract's signature)."
done

for s in $undefined; do
    case $s in
    ref_*) reject "it calls '$s', the reference solution, which your code cannot reach. Write your own." ;;
    dlopen | dlsym | dlvsym | dlmopen | system | popen | fork | vfork | posix_spawn* | exec[lv]* | ptrace)
        reject "it calls '$s', which a lab has no use for (loading code or starting processes)." ;;
    esac
done

if [ -n "$forbidden" ]; then
    # every symbol, local ones too: an inlined library call leaves only local kernel stubs
    hit=$($NM "$obj" | awk '{print $NF}' | grep -E -m1 -- "$forbidden" || true)
    [ -z "$hit" ] || reject "it uses '$hit', which lab $lab forbids: the point is to write it yourself."
fi

# The PTX (compiled for compute_90, so code behind __CUDA_ARCH__ >= 800 guards shows) and the
# machine code of every architecture in the object.
if [ -n "$ptx_forbidden" ] && [ -n "$ptx_file" ]; then
    # instructions only: not the .file lines (source paths) or comments
    hit=$(grep -v -E '^[[:space:]]*(\.file|//)' "$ptx_file" | grep -E -m1 -o -- "$ptx_forbidden" || true)
    [ -z "$hit" ] || reject "its device code contains the PTX instruction '$hit', which lab $lab forbids."
fi
if [ -n "$sass_forbidden" ]; then
    if ! [ -x "$CUOBJDUMP" ] && ! command -v "$CUOBJDUMP" >/dev/null 2>&1; then
        reject "its machine code cannot be checked for the instructions lab $lab forbids: cuobjdump is missing (install the CUDA toolkit's cuobjdump, or let make fetch it with python3 -m pip)."
    fi
    sass=$($CUOBJDUMP -sass "$obj" 2>&1) ||
        reject "cuobjdump could not read its machine code: $(echo "$sass" | grep -m1 .)"
    hit=$(echo "$sass" | grep -E -m1 -o -- "$sass_forbidden" || true)
    [ -z "$hit" ] || reject "its device code contains '$hit' instructions, which lab $lab forbids."
fi

localize=""
for s in $strong; do
    case " $entries " in *" $s "*) continue ;; esac
    localize="$localize --localize-symbol=$s"
done
# shellcheck disable=SC2086
$OBJCOPY $localize "$obj" "$out"
