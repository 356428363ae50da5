#!/bin/sh
# build_student.sh - runs INSIDE the compile sandbox (grader/sandbox/sandbox_run.c, started by the
# Makefile): compile the student's file, check its size, then vet the object (vet.sh, copied
# beside it).
#
#   build_student.sh LAB SRC OUT "ENTRY POINTS" "FORBIDDEN" "SASS REGEX" "PTX REGEX" COMPILER ARGS...
#
# The compiler and its flags come last; the object is compiled to OUT.raw, vetted into OUT.
# With a PTX regex, PTX_COMPILE (the compiler and flags for PTX of compute_90) writes OUT.ptx
# for vet.sh to read. Everything here sees only the sandbox's view: the student's file, the
# contract headers in include/, the toolkit and the system.
#
# The object may take at most MAX_OBJECT_MIB, on disk and in the memory it declares (its
# code, its data, and its zero-filled static arrays: nvcc gives every __device__ array a host
# copy of the same size). A lab's object is a few hundred KiB: the largest reference, built
# for every GPU architecture, is under 10 MiB. Static device arrays are allocated in GPU
# memory whenever the object is loaded, whatever the problem, and the smallest GPU the labs
# run on (a 4 GB laptop GPU) sizes its problems to what its memory holds; a lab's working
# space belongs in cudaMalloc, sized to the call. The limit also keeps build/ from holding
# copies of a huge object.
set -eu
MAX_OBJECT_MIB=64
lab=$1 src=$2 out=$3 entries=$4 forbidden=$5 sass=$6 ptx_re=$7
shift 7
# Under the CPU emulator (NVCC_CHECK set: nvcc with the GPU build's language flags), the file
# must build for a GPU too: g++ compiles what nvcc refuses (a kernel that calls a host function,
# std::swap in device code), and a file that passes here and does not build on a GPU earns
# nothing there. A file the emulator compiled is checked as far as PTX (nvcc's front end: the
# host side is what g++ just compiled); one it refused ("a GPU grades it") or stopped at is
# compiled whole (-c: the host side and its assembly too, as on a GPU), so that "a GPU grades
# it" holds. An nvcc that cannot compile here at all (a host compiler newer than its release
# takes: the emulator needs no nvcc to grade) fails an empty file too: then nothing is checked.
# (The student's files are in a folder of their own below the working folder, never in it, and
# that probe runs in a fresh folder: nothing they hand in stands where nvcc looks for its own
# headers, its implicit -include "cuda_runtime.h" among them.)
#   nvcc_check MODE: 0 nvcc compiled the file (MODE -ptx or -c); 1 it did not (its messages in
#   $out.nvcc); 2 not checked (no nvcc, or one that cannot compile here)
nvcc_check() {
    [ -n "${NVCC_CHECK:-}" ] || return 2
    # shellcheck disable=SC2086
    if $NVCC_CHECK "$1" "$src" -o "$out.check" >"$out.nvcc" 2>&1; then
        rm -f "$out.nvcc" "$out.check"
        return 0
    fi
    rm -f "$out.check"
    # the probe: an empty file of the grader's own, in a fresh folder of its own (nothing of the
    # student's is there or on its include path), so that no file a student hands in can make
    # nvcc look unable to compile and the check be skipped
    probe=$(mktemp -d "${TMPDIR:-/tmp}/nvcc-probe.XXXXXX") || return 2
    : >"$probe/nvcc_probe.cu"
    # shellcheck disable=SC2086
    (cd "$probe" && $NVCC_CHECK "$1" nvcc_probe.cu -o nvcc_probe.out) >/dev/null 2>&1 && s=1 || s=2
    rm -rf "$probe"
    return $s
}
# gpu_front_end MODE: 0 the file builds for a GPU (or could not be checked: a note says so);
# 1 it does not (nvcc's messages and the rejection printed)
gpu_front_end() {
    s=0
    nvcc_check "$1" || s=$?
    case $s in
    0) return 0 ;;
    2)
        [ -z "${NVCC_CHECK:-}" ] ||
            echo "note: nvcc cannot compile here ($(grep -m1 -i error "$out.nvcc" | cut -c1-160)); whether your file builds for a GPU was not checked" >&2
        rm -f "$out.nvcc"
        return 0 ;;
    esac
    cat "$out.nvcc" >&2
    rm -f "$out.nvcc"
    echo "rejected: $src does not build for a GPU: nvcc stops at the error(s) above, where the CPU emulator's compiler went on. Fix them: on a GPU this file would not build." >&2
    return 1
}
# A file the emulator's compiler stops at and nvcc compiles whole (an intrinsic or API the
# emulator does not provide, such as __vcmpeq4 or __isGlobal) is valid CUDA: not the student's
# error but the emulator's gap, refused ("a GPU grades it": nothing earned, never "did not
# build").
# emulator_gap ERRS: the refusal line for such a file, at the first error the emulator's
# compiler gave in the student's file. The name it did not know is quoted only when it is a
# plain identifier (the compiler's message can quote the file's own text).
emulator_gap() {
    at=$(grep -m1 -E "^([^:]*/)?$(basename "$src" | sed 's/[.[\*^$]/\\&/g'):[0-9]+:[0-9]+: error: " "$1")
    [ -n "$at" ] || at=$(grep -m1 -E '^[^:]+:[0-9]+:[0-9]+: error: ' "$1")
    ln=$(printf '%s\n' "$at" | sed -nE 's/^[^:]+:([0-9]+):[0-9]+: error: .*/\1/p')
    # (g++ quotes with ' in the C locale, with curly quotes in a UTF-8 one)
    name=$(printf '%s\n' "$at" | sed -nE -e "s/.*error: ('|‘)([A-Za-z_][A-Za-z0-9_:]{0,63})('|’) (was not declared in this scope|is not a member of|has not been declared).*/\2/p" \
        -e "s/.*error: there are no arguments to ('|‘)([A-Za-z_][A-Za-z0-9_:]{0,63})('|’) that depend on a template parameter.*/\2/p")
    what="code the CPU emulator's compiler stops at (nvcc compiles it)"
    [ -n "$name" ] && what="'$name' (nvcc compiles it; the CPU emulator does not provide it)"
    if [ -n "$ln" ]; then
        echo "cuda-emu: refused: $what at line $ln of $src; a GPU grades it"
    else
        echo "cuda-emu: refused: $what; a GPU grades it"
    fi
}
# Under the CPU emulator, an #include of Thrust's or CUB's headers stops the compile with the
# emulator's refusal ("a GPU grades it"); where the lab forbids that library, a GPU would reject
# the file for it, so it is rejected here with the lab's rule instead, in place of the compiler's
# messages (the stop at that #include was the only one, or there would be no refusal).
if ! "$@" -c "$src" -o "$out.raw" 2>"$out.err"; then
    hdr=$(sed -n "s/^cuda-emu: refused: NVIDIA's library header <\(cub\/[^>]*\|thrust\/[^>]*\)>.*/\1/p" "$out.err" | head -1)
    key=${hdr%%/*}
    case " ${forbidden%%:*} " in
    *" $key "*)
        if [ -n "$hdr" ]; then
            name=CUB
            [ "$key" = thrust ] && name=Thrust
            echo "rejected: your file includes <$hdr>, a header of $name: lab $lab is about $(echo "${forbidden#*:}" | sed 's/^ *//'), so $name may not be used." >&2
            echo "rejected: lab $lab takes your own code and the entry point(s) '$entries'. Remove that use and build again." >&2
            rm -f "$out.err"
            exit 1
        fi ;;
    esac
    # a refusal holds only for a file that builds for a GPU; otherwise nvcc's errors are the build's
    if grep -q '^cuda-emu: refused: ' "$out.err"; then
        if ! gpu_front_end -c; then
            rm -f "$out.err"
            exit 1
        fi
    elif nvcc_check -c; then
        emulator_gap "$out.err" >&2
        rm -f "$out.err"
        exit 1
    fi
    rm -f "$out.nvcc"
    cat "$out.err" >&2
    rm -f "$out.err"
    exit 1
fi
cat "$out.err" >&2
rm -f "$out.err"
if ! gpu_front_end -ptx; then
    rm -f "$out.raw"
    exit 1
fi

# size: the file's bytes; declared: code, data and zero-filled data (size's Berkeley total)
limit=$((MAX_OBJECT_MIB * 1048576))
bytes=$(wc -c <"$out.raw")
declared=$(size -B "$out.raw" | awk 'NR == 2 { print $4 }')
if [ "$bytes" -gt "$limit" ] || [ "${declared:-0}" -gt "$limit" ]; then
    # the largest symbol, as evidence (demangled: the name the student wrote)
    big=$(nm -S --size-sort -C "$out.raw" 2>/dev/null | awk 'NF >= 4 { n = $0 } END { print n }')
    biggest=
    if [ -n "$big" ]; then
        set -- $big
        biggest=" Its largest symbol is '$(echo "$big" | cut -d' ' -f4-)', $(( $(printf '%d' "0x$2") / 1048576 )) MiB."
    fi
    rm -f "$out.raw"
    echo "rejected: $src: its object is too large: $((bytes / 1048576)) MiB on disk and $((${declared:-0} / 1048576)) MiB of code and static data (static arrays included), where the limit is $MAX_OBJECT_MIB MiB.$biggest" >&2
    echo "rejected: a __device__ array is allocated in GPU memory whenever your object loads, whatever the problem size, and counts against the memory the smallest GPU (4 GB) has for the lab's own buffers. Allocate the space you need with cudaMalloc in your launcher (or use the buffers the launcher is given) instead." >&2
    exit 1
fi

ptx=""
if [ -n "$ptx_re" ]; then
    # shellcheck disable=SC2086
    $PTX_COMPILE -ptx "$src" -o "$out.ptx"
    ptx=$out.ptx
fi
sh ./vet.sh "$lab" "$out.raw" "$out" "$entries" "$forbidden" "$sass" "$ptx" "$ptx_re"
rm -f "$out.raw" "$out.ptx" # (one copy of the object leaves the sandbox: OUT)
