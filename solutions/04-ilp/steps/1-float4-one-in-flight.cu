/* Lab 04, rung 1: 16-byte loads; one float4 (memory) and one chain (arithmetic) per iteration.
 *
 * Changed from the skeleton. Memory: each thread moves a float4 (16 bytes) per load instead of
 * a float, and each block streams its own contiguous share of the array. Why: with the launch
 * fixed at 8 warps per SM, bytes in flight per SM are what limits bandwidth (Little's law:
 * bytes in flight = bandwidth x latency); 16 bytes per load is 4x the skeleton's 4, and nvcc
 * happens to unroll this loop by two, so about 2 loads are in flight per thread.
 * Arithmetic: unchanged in substance, one dependent chain per thread (the step loop unrolled
 * 64 deep, so loop overhead is not what you measure): 2 independent FMAs per scheduler, where
 * 4 schedulers x 4 cycles of FMA latency want 16 per SM. The next rungs add independent work. */
#include "ilp.h"
#include "check.h"

namespace {

/* Memory: block b streams its own contiguous 1/gridDim of the array, LOADS float4 per thread
 * per iteration, all loaded before any is scaled and stored. */
#define LOADS 1

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
#define CHAINS 1

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
