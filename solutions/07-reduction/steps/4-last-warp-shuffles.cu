/* Lab 07, rung 4 (Harris's kernel 5): the last warp by shuffles.
 *
 * Changed from rung 3: once 64 values are left, one warp finishes the job in registers with
 * __shfl_down_sync: no shared memory and no block-wide barrier for the last 6 levels. Why:
 * those levels kept a whole block waiting at __syncthreads for a handful of active lanes.
 * (The 2007 original read shared memory through a volatile pointer without barriers, which
 * relies on a warp's lanes running in lockstep; since Volta they need not. Shuffles with an
 * explicit mask are the safe form.) */
#include "reduction.h"
#include "check.h"

namespace {

#define THREADS 256 /* threads per block */

/* The sum of v over the warp's 32 lanes, in lane 0: five shuffle levels in registers. */
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce_last_warp(float *out, const float *in, long long n)
{
    __shared__ float sdata[THREADS];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * THREADS) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + THREADS < n ? in[i + THREADS] : 0.0f);
    __syncthreads();
    for (unsigned s = THREADS / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        const float v = warp_sum(sdata[tid] + sdata[tid + 32]);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* One launch per tree level (reduction_levels.cuh): each block reduces PER_BLOCK elements. */
#define PER_BLOCK (2 * THREADS)
#define REDUCE_KERNEL reduce_last_warp

} /* namespace */

#include "reduction_levels.cuh"
