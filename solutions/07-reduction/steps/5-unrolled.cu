/* Lab 07, rung 5 (Harris's kernel 6): completely unrolled.
 *
 * Changed from rung 4: the block size is a template parameter, so the loop over tree levels,
 * its counter and its tests are resolved at compile time: straight-line code with only the
 * `tid < s` guards left. Why: at this point every instruction the block executes besides the
 * adds is overhead. A small gain; the large ones are in the next rung. */
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

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_unrolled(float *out, const float *in, long long n)
{
    __shared__ float sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * BLOCK) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + BLOCK < n ? in[i + BLOCK] : 0.0f);
    __syncthreads();
#pragma unroll
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
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
#define REDUCE_KERNEL reduce_unrolled<THREADS>

} /* namespace */

#include "reduction_levels.cuh"
