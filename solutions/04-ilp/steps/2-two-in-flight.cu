/* Lab 04, rung 2: two independent operations in flight per thread.
 *
 * Changed from rung 1: memory loads 2 float4 before it stores any; arithmetic advances 2
 * elements' chains side by side. Why: Little's law again. Arithmetic: 2 chains per thread
 * give each scheduler 4 independent FMAs per 4-cycle latency instead of 2: nearly twice the
 * throughput. Memory: no change measured, because the compiler had already unrolled rung 1 to
 * 2 loads in flight (count the LDG.E.128 before the first STG.E.128 in cuobjdump -sass): what
 * is in flight is the compiler's call as much as the source's. */
#include "ilp.h"
#include "check.h"

namespace {

/* Memory: block b streams its own contiguous 1/gridDim of the array, LOADS float4 per thread
 * per iteration, all loaded before any is scaled and stored. */
#define LOADS 2

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
            v[k] = in[base + k * T]; /* a warp: 32 consecutive float4, 512 bytes */
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            out[base + k * T] = make_float4(v[k].x * a, v[k].y * a, v[k].z * a, v[k].w * a);
    }
    for (; base < end; base += T) { /* the end of the share, one float4 at a time */
        const float4 v = in[base];
        out[base] = make_float4(v.x * a, v.y * a, v.z * a, v.w * a);
    }
    /* The last n % 4 floats, which no float4 covers. */
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4)
        ((float *)out)[4 * n4 + threadIdx.x] = ((const float *)in)[4 * n4 + threadIdx.x] * a;
}

/* Arithmetic: CHAINS elements per thread (i, i + S, ...; S = all threads of the grid), their
 * chains advanced side by side: the CHAINS FMAs of one step are independent. */
#define CHAINS 2

__global__ void chains_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int S = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n; base += CHAINS * S) {
        float x[CHAINS], y[CHAINS];
#pragma unroll
        for (int j = 0; j < CHAINS; j++) /* past the end: a dummy chain, never stored */
            x[j] = y[j] = base + j * S < n ? in[base + j * S] : 1.0f;
#pragma unroll 64
        for (int k = 0; k < ILP_STEPS; k++)
#pragma unroll
            for (int j = 0; j < CHAINS; j++)
                y[j] = fmaf(y[j], x[j], ILP_C);
#pragma unroll
        for (int j = 0; j < CHAINS; j++)
            if (base + j * S < n)
                out[base + j * S] = y[j];
    }
}

} /* namespace */

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_kernel<<<blocks, threads, 0, stream>>>((float4 *)out, (const float4 *)in, a, n);
    CUDA_CHECK_LAUNCH();
}

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    chains_kernel<<<blocks, threads, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
