#!/usr/bin/env bash
# refusals.sh - a valid CUDA feature the emulator cannot run is refused at build time as such:
# emu-nvcc prints "cuda-emu: refused: FEATURE at line N of FILE; a GPU grades it" (the line the
# grader reads to grade the file "could not run", never FAIL), and a feature it runs builds.
#
#   tests/emu/refusals.sh            (EMU_BUILD: the emulator's tools, as emu-nvcc takes it)
set -u
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/emu-refusals.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# case NAME EXPECT: the source on stdin (compiled with CASE_FLAGS too); EXPECT is "builds",
# "builds-not" (an error of the file's own beside a refusal: no refusal line), or the refusal's
# text after "refused: " (a regex), which must name the line holding the word MARK.
case_() {
    local name=$1 expect=$2 src=$work/$1.cu out
    cat >"$src"
    # shellcheck disable=SC2086
    out=$(common/emu/emu-nvcc ${CASE_FLAGS:-} -c "$src" -o "$work/$name.o" 2>&1)
    local rc=$? line
    line=$(grep -n 'MARK' "$src" | head -1 | cut -d: -f1)
    if [ "$expect" = builds-not ]; then
        if [ $rc -ne 0 ] && ! grep -q '^cuda-emu: refused' <<<"$out"; then pass=$((pass + 1)); echo "ok   $name: a build error, no refusal"
        else fail=$((fail + 1)); echo "FAIL $name: expected a build error and no refusal; got:"; sed 's/^/  | /' <<<"$out" | tail -8; fi
    elif [ "$expect" = builds ]; then
        if [ $rc -eq 0 ] && ! grep -q 'refused' <<<"$out"; then pass=$((pass + 1)); echo "ok   $name: builds"
        else fail=$((fail + 1)); echo "FAIL $name: expected it to build; got:"; sed 's/^/  | /' <<<"$out" | tail -8; fi
    elif [ $rc -ne 0 ] && grep -Eq "^cuda-emu: refused: $expect at line $line of .*; a GPU grades it$" <<<"$out"; then
        pass=$((pass + 1)); echo "ok   $name: $(grep '^cuda-emu: refused' <<<"$out")"
    else
        fail=$((fail + 1)); echo "FAIL $name: expected the refusal '$expect' at line $line; got (status $rc):"
        sed 's/^/  | /' <<<"$out" | tail -8
    fi
}

case_ asm-other "inline PTX instruction 'ex2\\.approx\\.ftz\\.f32'" <<'CU'
__global__ void k(float *x)
{
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x[0])); // MARK
    x[0] = y;
}
CU
case_ cp-async-bulk "inline PTX instruction 'cp\\.async\\.bulk\\.shared::cluster\\.global[^']*'" <<'CU'
__global__ void k(const float4 *g)
{
    __shared__ float4 s[32];
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[0]);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];" // MARK
                 ::"r"(at), "l"(g), "r"(at));
}
CU
case_ pipeline-class "nvcuda::experimental::pipeline \\(use __pipeline_memcpy_async.*\\)" <<'CU'
#include <cuda_pipeline.h>
__global__ void k(const float *g)
{
    __shared__ float s[32];
    nvcuda::experimental::pipeline pipe; // MARK
    s[threadIdx.x] = g[threadIdx.x];
}
CU
case_ ptx-subset builds <<'CU'
__global__ void k(float4 *out, const float *in)
{
    __shared__ float4 s[32];
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(in), "r"(16));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(in + 4 * threadIdx.x));
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(out + threadIdx.x), "f"(v.x),
                 "f"(v.y), "f"(v.z), "f"(v.w));
}
CU
case_ not-cuda builds-not <<'CU'
__global__ void k(float *x)
{
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x[0]));
    x[0] = y + undeclared_name; // MARK: a file wrong for a GPU too is no refusal
}
CU
# NVIDIA's library headers the emulator does not provide: Thrust's, CUB's, libcu++'s <cuda/std/...>
# are the toolkit's (valid CUDA: refused, named); a header the toolkit does not hold either is the
# file's own missing file (a build error)
case_ thrust-header "NVIDIA's library header <thrust/transform\\.h>" <<'CU'
#include <thrust/transform.h> // MARK
__global__ void k(float *x) { x[0] = 1; }
CU
case_ cub-header "NVIDIA's library header <cub/block/block_reduce\\.cuh>" <<'CU'
#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh> // MARK
__global__ void k(float *x) { x[0] = 1; }
CU
case_ own-header-missing builds-not <<'CU'
#include "my_helpers.cuh"
__global__ void k(float *x) { x[0] = 1; }
CU
case_ thrust-no-such-header builds-not <<'CU'
#include <thrust/no_such_header.h>
__global__ void k(float *x) { x[0] = 1; }
CU

case_ cluster-group "thread block clusters \\(cooperative_groups::cluster_group\\)" <<'CU'
#include <cooperative_groups.h>
__global__ void __cluster_dims__(2, 1, 1) k(float *x)
{
    cooperative_groups::cluster_group c = cooperative_groups::this_cluster(); // MARK
    x[blockIdx.x] = 1;
}
CU
# A launch in device code: valid CUDA in separate compilation (-rdc=true, -dc), refused there; in
# a whole-program compile (nvcc's default, the grader's) nvcc stops at it, and so does this
CASE_FLAGS=-rdc=true case_ device-launch 'a kernel launch inside device code \(dynamic parallelism\)' <<'CU'
__global__ void child(int *x) { x[0] = 1; }
__global__ void parent(int *x)
{
    child<<<1, 1>>>(x); // MARK
}
CU
CASE_FLAGS=-dc case_ device-launch-dc 'a kernel launch inside device code \(dynamic parallelism\)' <<'CU'
__global__ void child(int *x) { x[0] = 1; }
__global__ void parent(int *x)
{
    child<<<1, 1>>>(x); // MARK
}
CU
case_ device-launch-whole-program builds-not <<'CU'
__global__ void child(int *x) { x[0] = 1; }
__global__ void parent(int *x)
{
    child<<<1, 1>>>(x);
}
CU
case_ asm-fenced-off builds <<'CU'
__global__ void k(float *x)
{
#ifndef CUDA_EMU
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[1]) : "f"(x[0]));
#else
    x[1] = exp2f(x[0]);
#endif
}
CU
case_ launch-ex builds <<'CU'
__global__ void k(float *x, int n) { cudaGridDependencySynchronize(); if (threadIdx.x < n) x[threadIdx.x] = 1; }
void run(float *x, cudaStream_t s)
{
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute a[1];
    a[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a[0].val.programmaticStreamSerializationAllowed = 1;
    c.gridDim = 1; c.blockDim = 32; c.stream = s; c.attrs = a; c.numAttrs = 1;
    cudaLaunchKernelEx(&c, k, x, 32);
}
CU
case_ graph builds <<'CU'
__global__ void k(float *x) { x[threadIdx.x] = 1; }
void run(float *x, cudaStream_t s)
{
    cudaGraph_t g; cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    k<<<1, 32, 0, s>>>(x);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    cudaGraphLaunch(e, s);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
}
CU
case_ header-barrier "cuda::barrier \\(<cuda/barrier>\\)" <<'CU'
#include <cuda_runtime.h>
#include <cuda/barrier> // MARK: a header the emulator does not emulate, refused at its include
__global__ void k(float *x) { x[threadIdx.x] = 1; }
CU
case_ header-then-used "cuda::atomic \\(<cuda/atomic>\\)" <<'CU'
#include <cuda/atomic> // MARK: the names it would declare are used below; the refusal still stands
__global__ void k(float *r)
{
    cuda::atomic_ref<float, cuda::thread_scope_device> total(*r);
    total.fetch_add(1.0f, cuda::memory_order_relaxed);
}
CU
case_ header-mma "warp matrix functions \\(<mma\\.h>: wmma, tensor cores\\)" <<'CU'
#include <mma.h> // MARK
__global__ void k(float *x) { x[threadIdx.x] = 1; }
CU
case_ graph-exec-update "cudaGraphExecUpdate \\(updating an instantiated graph\\)" <<'CU'
void run(cudaGraphExec_t e, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo info;
    if (cudaGraphExecUpdate(e, g, &info) != cudaSuccess) // MARK
        cudaGetLastError();
}
CU
case_ graph-conditional "cudaGraphConditionalHandleCreate \\(conditional graph nodes\\)" <<'CU'
void run(cudaGraph_t g)
{
    cudaGraphConditionalHandle h;
    cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault); // MARK
    cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
}
__global__ void set_cond(cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, 0); }
CU
case_ memcpy-3d "cudaMemcpy3D \\(3D copies and pitched 3D allocations\\)" <<'CU'
void run(float *dst, float *src, size_t w, size_t h, size_t d)
{
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(src, w * sizeof(float), w, h);
    p.dstPtr = make_cudaPitchedPtr(dst, w * sizeof(float), w, h);
    p.extent = make_cudaExtent(w * sizeof(float), h, d);
    p.kind = cudaMemcpyDeviceToDevice;
    cudaMemcpy3D(&p); // MARK
}
CU
case_ texture-fetch "tex2D \\(textures\\)" <<'CU'
__global__ void k(float *out, cudaTextureObject_t t, int w)
{
    out[threadIdx.x] = tex2D<float>(t, threadIdx.x + 0.5f, 0.5f); // MARK
}
CU
case_ surface-write "surf2Dwrite \\(surfaces\\)" <<'CU'
__global__ void k(cudaSurfaceObject_t s)
{
    surf2Dwrite(1.0f, s, threadIdx.x * 4, 0); // MARK
}
CU
case_ texture-object "cudaCreateTextureObject \\(CUDA arrays, textures and surfaces\\)" <<'CU'
void run(float *in, size_t n)
{
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = in;
    res.res.linear.desc.f = cudaChannelFormatKindFloat;
    res.res.linear.desc.x = 32;
    res.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc desc = {};
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &res, &desc, nullptr); // MARK
}
CU
case_ refused-fenced-off builds <<'CU'
void run(cudaGraphExec_t e, cudaGraph_t g)
{
#ifndef CUDA_EMU
    cudaGraphExecUpdateResultInfo info;
    cudaGraphExecUpdate(e, g, &info);
#endif
}
CU
case_ refused-and-wrong builds-not <<'CU'
void run(cudaGraphExec_t e, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo info;
    cudaGraphExecUpdate(e, g, &info);
    undeclared_name = 1; // MARK: a file wrong for a GPU too is no refusal
}
CU
# run_case NAME EXPECT: a program (source on stdin) that builds and, at run time, meets a
# feature the emulator refuses then: it prints "cuda-emu: refused: EXPECT at line N of FILE; a
# GPU grades it" naming the line holding MARK, and exits with status 86 (report.cpp).
run_case() {
    local name=$1 expect=$2 src=$work/$1.cu out rc line
    cat >"$src"
    line=$(grep -n 'MARK' "$src" | head -1 | cut -d: -f1)
    if ! out=$(common/emu/emu-nvcc "$src" -o "$work/$name" 2>&1); then
        fail=$((fail + 1)); echo "FAIL $name: expected it to build; got:"; sed 's/^/  | /' <<<"$out" | tail -8
        return
    fi
    out=$("$work/$name" 2>&1)
    rc=$?
    if [ $rc -eq 86 ] && grep -Eq "^cuda-emu: refused: $expect at line $line of .*$name\.cu; a GPU grades it$" <<<"$out"; then
        pass=$((pass + 1)); echo "ok   $name: (run) $(grep '^cuda-emu: refused' <<<"$out")"
    else
        fail=$((fail + 1)); echo "FAIL $name: expected the run-time refusal '$expect' at line $line and status 86; got (status $rc):"
        sed 's/^/  | /' <<<"$out" | tail -8
    fi
}

run_case run-cluster-attribute "cudaFuncSetAttribute of a cluster attribute \\(thread block clusters\\)" <<'CU'
#include <cstdio>
__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
int main()
{
    cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1); // MARK
    printf("not refused\n");
    return 0;
}
CU
run_case run-graph-in-capture "cudaGraphLaunch into a stream being captured \\(a graph inside a graph\\)" <<'CU'
#include <cstdio>
__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
int main()
{
    float *x;
    cudaMalloc(&x, 128);
    cudaStream_t s, t;
    cudaStreamCreate(&s);
    cudaStreamCreate(&t);
    cudaGraph_t g, outer;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    k<<<1, 32, 0, s>>>(x);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    cudaStreamBeginCapture(t, cudaStreamCaptureModeGlobal);
    cudaGraphLaunch(e, t); // MARK
    cudaStreamEndCapture(t, &outer);
    printf("not refused\n");
    return 0;
}
CU

echo "refusals: $pass passed, $fail failed"
[ $fail -eq 0 ]
