/* ilp_loads.cuh - lab 04's memory kernel for ladder rungs 1 to 4, written once: block b streams
 * its own contiguous 1/gridDim of the array, LOADS float4 per thread per iteration, all loaded
 * before any is scaled and stored; and the entry point ilp_memory that launches it. A rung
 * defines LOADS (1, 2, 4, 8) before it includes this file. */
#ifndef LOADS
#error "define LOADS (float4 loads in flight per thread) before including ilp_loads.cuh"
#endif

#include "ilp.h"
#include "check.h"

namespace {

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

} /* namespace */

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_kernel<<<blocks, threads, 0, stream>>>((float4 *)out, (const float4 *)in, a, n);
    CUDA_CHECK_LAUNCH();
}
