#!/usr/bin/env bash
# pch.sh - the precompiled prelude (emu-nvcc --emu-pch): each kind of .cu compile (checked,
# trusted; both position-independent, -fPIC given or not) takes its own precompiled file, and its object's code and symbols are
# those of the same compile without it (EMU_PCH=0); a compile that no file matches (another C++
# standard, --default-stream per-thread) reads the header itself, and one whose files are older
# than a header of the emulator's include/ is offered none.
#
#   tests/emu/pch.sh        (EMU_BUILD: the emulator's tools and its pch/, as emu-nvcc takes it)
set -u
cd "$(dirname "$0")/../.."
: "${EMU_BUILD:=build/emu}"
work=$(mktemp -d "${TMPDIR:-/tmp}/emu-pch.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

cat >"$work/kernel.cu" <<'CU'
#include <cstdio>
__global__ void twice(const float *a, float *b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = 2 * a[i]; }
void run(const float *a, float *b, int n) { twice<<<(n + 255) / 256, 256>>>(a, b, n); cudaDeviceSynchronize(); }
CU
cat >"$work/host.cu" <<'CU'
#include <cuda_runtime.h>
void reference(const float *a, float *b, int n) { for (int i = 0; i < n; i++) b[i] = 2 * a[i]; }
CU

# The precompiled file a compile took ("! FILE" in g++'s -H list), or "none".
taken() { sed -n 's|^! .*/prelude\.h\.gch/||p' "$1" | head -1 | grep . || echo none; }
# Code and symbols of an object, without its file name.
code() { objdump -d --no-show-raw-insn "$1" | tail -n +3; nm "$1"; }

# check NAME SOURCE EXPECT [OPTION...]: EXPECT is the file it must take (or none), and the
# object must be the one compiled without the prelude precompiled.
check() {
    local name=$1 src=$2 expect=$3 got
    shift 3
    # (the same file name both times: a static constructor's symbol is named after it)
    mkdir -p "$work/plain"
    if ! common/emu/emu-nvcc "$@" -Xcompiler -H -c "$work/$src.cu" -o "$work/$name.o" 2>"$work/$name.err" ||
       ! EMU_PCH=0 common/emu/emu-nvcc "$@" -c "$work/$src.cu" -o "$work/plain/$name.o" 2>"$work/plain/$name.err"; then
        fail=$((fail + 1)); echo "FAIL $name: did not compile:"; grep -v '^\.' "$work/$name.err" | sed 's/^/  | /' | tail -8; return
    fi
    got=$(taken "$work/$name.err")
    if [ "$got" != "$expect" ]; then
        fail=$((fail + 1)); echo "FAIL $name ($*): took the precompiled prelude '$got', expected '$expect'"
    elif ! cmp -s <(code "$work/$name.o") <(code "$work/plain/$name.o"); then
        fail=$((fail + 1)); echo "FAIL $name ($*): the object differs from the one compiled without it"
    else
        pass=$((pass + 1)); echo "ok   $name ($*): took '$got', the same code and symbols as without"
    fi
}

check checked kernel checked
check checked-pic kernel checked -fPIC
check trusted host trusted --emu-trusted-host
check trusted-pic host trusted --emu-trusted-host -fPIC
check trusted-kernel kernel checked --emu-trusted-host
check cxx20 kernel none -fPIC -std=c++20
check per-thread kernel none -fPIC --default-stream per-thread

# Files older than a header: not offered (another EMU_BUILD, its tools those of this one).
stale=$work/emu
mkdir -p "$stale/pch/cuda_emu"
ln -s "$(cd "$EMU_BUILD/tools" && pwd)" "$stale/tools"
cp -r "$EMU_BUILD/pch/cuda_emu/prelude.h.gch" "$stale/pch/cuda_emu/"
touch -d '2000-01-01' "$stale/pch/cuda_emu/prelude.h.gch/checked"
EMU_BUILD=$stale check stale kernel none

# A file of a kind no longer made (a build from before the kinds changed) goes when a prelude is
# made, and the made one stays.
gch=$stale/pch/cuda_emu/prelude.h.gch
touch "$gch/checked-pic"
if ! EMU_BUILD=$stale common/emu/emu-nvcc --emu-pch trusted "$gch/trusted" 2>"$work/remake.err"; then
    fail=$((fail + 1)); echo "FAIL remake: --emu-pch trusted failed:"; sed 's/^/  | /' "$work/remake.err" | tail -5
elif [ -e "$gch/checked-pic" ] || [ ! -s "$gch/trusted" ]; then
    fail=$((fail + 1)); echo "FAIL remake: after --emu-pch trusted, expected checked-pic gone and trusted made; the folder holds: $(ls "$gch" | tr '\n' ' ')"
else
    pass=$((pass + 1)); echo "ok   remake: a file of a kind no longer made (checked-pic) removed, trusted made"
fi

echo "pch: $pass passed, $fail failed"
[ $fail -eq 0 ]
