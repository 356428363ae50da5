/* Lab 04, rung 5: sixteen loads really in flight before any store; back to 4 chains.
 *
 * Changed from rung 4. Memory: 16 float4 loads per thread, and the end of each block's share
 * is handled by the same 16-wide shape (guarded), so the SASS shows 16 LDG.E.128 before the
 * first STG.E.128: 256 bytes per thread, 64 KB per SM in flight, enough to cover DRAM latency.
 * Arithmetic: 4 chains per thread, the best of rungs 1-4.
 * What is left for the reference: the access pattern across the chip. Here each block walks
 * its own contiguous share, so 132 far-apart streams compete for DRAM; the reference has the
 * whole grid sweep the array together (thread t takes float4 t, t + S, ...), and its arithmetic
 * loads the next inputs before running the current chains. */
#include "ilp.h"
#include "check.h"

namespace {

/* Memory: block b streams its own contiguous 1/gridDim of the array; every thread issues 16
 * float4 loads, then does 16 multiplies and stores. The tail iteration keeps the same shape
 * (guarded), so the compiler never has a reason to interleave stores with the loads. */
#define LOADS 16

__device__ __forceinline__ float4 scale4(float4 v, float a)
{
    return make_float4(v.x * a, v.y * a, v.z * a, v.w * a);
}

__global__ void scale_kernel(float4 *__restrict__ out, const float4 *__restrict__ in, float a,
                             int n)
{
    const int n4 = n / 4;
    const int share = (n4 + gridDim.x - 1) / gridDim.x;
    const int begin = blockIdx.x * share;
    const int end = begin + share < n4 ? begin + share : n4;
    const int T = blockDim.x;
    int base = begin + threadIdx.x;
    for (; base + (LOADS - 1) * T < end; base += LOADS * T) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            v[k] = in[base + k * T];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            out[base + k * T] = scale4(v[k], a);
    }
    if (base < end) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * T < end)
                v[k] = in[base + k * T];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * T < end)
                out[base + k * T] = scale4(v[k], a);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4)
        ((float *)out)[4 * n4 + threadIdx.x] = ((const float *)in)[4 * n4 + threadIdx.x] * a;
}

} /* namespace */

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_kernel<<<blocks, threads, 0, stream>>>((float4 *)out, (const float4 *)in, a, n);
    CUDA_CHECK_LAUNCH();
}

#define CHAINS 4 /* chains a thread advances side by side: the best of rungs 1-4 */
#include "ilp_chains.cuh" /* the arithmetic kernel and ilp_arith */
