#!/usr/bin/env bash
# check-prebuilt.sh - can this machine's compilers use a student kit's prebuilt reference?
#
#   check-prebuilt.sh gpu OBJECT              before the GPU build uses OBJECT (NVCC: nvcc)
#   check-prebuilt.sh emu OBJECT              before the emulator's build uses OBJECT
#   check-prebuilt.sh emu-link OBJECT SO LINK-ARGS...
#                                             after SO (the reference behind the lab's shim)
#                                             is linked: links a program with LINK-ARGS and SO
#                                             (EMU_CXX: g++), so every symbol SO needs must
#                                             resolve here, as it must when the worker loads it
#
# A student kit (make dist) carries each lab's reference as objects only, made on the machine
# described in prebuilt/BUILDINFO. The GPU object is a fat binary (machine code for every
# architecture the toolkit knew, plus PTX); it links with a CUDA toolkit of the same major
# version. The emulator's object is C++ compiled by g++ with sanitizer instrumentation; it
# links with the same g++ (or, usually, a newer one). Each failure is one line starting with
# "error:" that says what to install; the details follow in the build log.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=$1 obj=$2
info=prebuilt/BUILDINFO
[ -f "$info" ] || { echo "error: $info is missing: this student kit is incomplete (make dist writes it)" >&2; exit 1; }
# shellcheck disable=SC1090
. "$info"
[ -f "$obj" ] || { echo "error: $obj is missing: this student kit is incomplete (make dist writes it)" >&2; exit 1; }

machine=$(uname -m)
if [ "$mode" != emu-link ] && [ "$machine" != "$KIT_MACHINE" ]; then
    echo "error: the prebuilt reference $obj is $KIT_MACHINE code and this machine is $machine: grade on $KIT_MACHINE Linux, or ask for a kit built on $machine" >&2
    exit 1
fi

case $mode in
gpu)
    nvcc=${NVCC:-nvcc}
    have=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9.]*\),.*/\1/p')
    want=${KIT_CUDA_VERSION%.*}
    if [ -z "$have" ]; then
        echo "error: cannot tell the version of $nvcc; the prebuilt reference needs the CUDA $want toolkit or newer" >&2
        exit 1
    fi
    if [ "${have%%.*}" -lt "${want%%.*}" ]; then
        echo "error: the prebuilt reference $obj was compiled with CUDA $want, and this toolkit is CUDA $have: install CUDA $want or newer (with a driver that supports it)" >&2
        exit 1
    fi
    if [ "${have%%.*}" -gt "${want%%.*}" ]; then
        echo "note: the prebuilt reference was compiled with CUDA $want and this toolkit is CUDA $have; if it fails to link or load, install CUDA ${want%%.*}.x or ask for a kit built with CUDA $have" >&2
    fi
    ;;
emu)
    cxx=${EMU_CXX:-g++}
    have=$("$cxx" -dumpfullversion 2>/dev/null || "$cxx" -dumpversion 2>/dev/null)
    if [ "${have%%.*}" != "${KIT_GXX_VERSION%%.*}" ]; then
        echo "note: the emulator's prebuilt reference was compiled by g++ $KIT_GXX_VERSION and this $cxx is ${have:-unknown}; checking that it links" >&2
    fi
    ;;
emu-link)
    so=$3
    shift 3
    cxx=${EMU_CXX:-g++}
    log=$so.linkcheck.log
    if ! "$cxx" "$@" "$so" -o "$so.linkcheck" >"$log" 2>&1; then
        have=$("$cxx" -dumpfullversion 2>/dev/null || "$cxx" -dumpversion 2>/dev/null)
        want=${KIT_GXX_VERSION%%.*}
        first=$(sed -n "s/.*undefined reference to \`\([^']*\)'.*/\1/p" "$log" | head -1)
        why=${first:+ (it needs $first, which is not here)}
        if [ -z "$have" ]; then
            echo "error: the prebuilt reference $obj needs g++ $want to link, and $cxx was not found: install g++ $want (Debian and Ubuntu: g++-$want)" >&2
        elif [ "${have%%.*}" != "$want" ]; then
            echo "error: this $cxx ($have) cannot link the prebuilt reference $obj, which $KIT_GXX compiled$why: install g++ $want with its sanitizer libraries (Debian and Ubuntu: g++-$want) and run make with EMU_CXX=g++-$want EMU_CC=gcc-$want (see prebuilt/README.md)" >&2
        else
            echo "error: this $cxx ($have) cannot link the prebuilt reference $obj, which the same g++ version compiled$why: the kit does not match this system; the linker's messages are in $log" >&2
        fi
        grep -m8 -E 'undefined|cannot find|not found|version' "$log" | sed 's/^/    /' >&2
        rm -f "$so" "$so.linkcheck"
        exit 1
    fi
    rm -f "$so.linkcheck"
    ;;
*)
    echo "check-prebuilt.sh: unknown mode '$mode' (gpu, emu or emu-link)" >&2
    exit 2
    ;;
esac
exit 0
