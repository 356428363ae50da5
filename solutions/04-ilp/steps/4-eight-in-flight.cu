/* Lab 04, rung 4: eight per thread.
 *
 * Changed from rung 3: 8 float4 loads per iteration; 8 chains per thread. Why try: more
 * independent work per thread. What it shows: more is not always better. Arithmetic got
 * slower: 8 chains need more registers and longer unrolled bodies, and 4 chains had already
 * filled the pipe. Memory barely moved: ptxas hoisted stores between the loads, so only about
 * 4 loads are really in flight before the first store (read the SASS). */
#include "ilp.h"
#include "check.h"

namespace {

/* Memory: block b streams its own contiguous 1/gridDim of the array, LOADS float4 per thread
 * per iteration, all loaded before any is scaled and stored. */
#define LOADS 8

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
#define CHAINS 8

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
