#!/usr/bin/env bash
# trusted-host.sh - emu-nvcc --emu-trusted-host (the grader's own files): a .cu file that
# defines no kernel is compiled without the per-access calls (no __tsan_* hook in its object),
# one that defines a kernel, directly or in a header it includes, keeps them, and a file
# compiled without the option keeps them too (student code is always checked).
#
#   tests/emu/trusted-host.sh        (EMU_BUILD: the emulator's tools, as emu-nvcc takes it)
set -u
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/emu-trusted.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# check NAME EXPECT [OPTION]: compiles $work/NAME.cu; EXPECT is "hooks" or "no-hooks".
check() {
    local name=$1 expect=$2 n
    shift 2
    if ! common/emu/emu-nvcc "$@" -c "$work/$name.cu" -o "$work/$name.o" 2>"$work/$name.err"; then
        fail=$((fail + 1)); echo "FAIL $name: did not compile:"; sed 's/^/  | /' "$work/$name.err" | tail -8; return
    fi
    n=$(nm "$work/$name.o" | grep -c ' U __tsan_')
    if { [ "$expect" = hooks ] && [ "$n" -gt 0 ]; } || { [ "$expect" = no-hooks ] && [ "$n" -eq 0 ]; }; then
        pass=$((pass + 1)); echo "ok   $name $*: $n access hooks called"
    else
        fail=$((fail + 1)); echo "FAIL $name $*: expected $expect, found $n access hooks called"
    fi
}

cat >"$work/host.cu" <<'CU'
#include <cuda_runtime.h>
void reference(const float *a, float *b, int n) { for (int i = 0; i < n; i++) b[i] = 2 * a[i]; }
CU
cat >"$work/kernel.cu" <<'CU'
#include <cuda_runtime.h>
__global__ void twice(const float *a, float *b, int n) { int i = threadIdx.x; if (i < n) b[i] = 2 * a[i]; }
void reference(const float *a, float *b, int n) { for (int i = 0; i < n; i++) b[i] = 2 * a[i]; }
void run(const float *a, float *b, int n) { twice<<<1, 32>>>(a, b, n); }
CU
cat >"$work/kernel_header.cuh" <<'CU'
__global__ void twice(const float *a, float *b, int n) { int i = threadIdx.x; if (i < n) b[i] = 2 * a[i]; }
CU
cat >"$work/via_header.cu" <<'CU'
#include <cuda_runtime.h>
#include "kernel_header.cuh"
void run(const float *a, float *b, int n) { twice<<<1, 32>>>(a, b, n); }
CU

check host no-hooks --emu-trusted-host
check host hooks
check kernel hooks --emu-trusted-host
check via_header hooks --emu-trusted-host
echo "trusted-host: $pass passed, $fail failed"
[ $fail -eq 0 ]
