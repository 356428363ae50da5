/* Lab 07, rung 3 (Harris's kernel 4): first add during load.
 *
 * Changed from rung 2: each thread loads TWO elements, a block apart, and adds them before the
 * tree. Why: half as many blocks for the same data, no thread idle at the first level, and two
 * independent loads in flight per thread instead of one: the biggest single jump on this
 * ladder, because the kernel is starved for bytes in flight (lab 04). */
#include "reduction.h"
#include "check.h"

namespace {

#define THREADS 256 /* threads per block */

__global__ void reduce_first_add(float *out, const float *in, long long n)
{
    __shared__ float sdata[THREADS];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * THREADS) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + THREADS < n ? in[i + THREADS] : 0.0f);
    __syncthreads();
    for (unsigned s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* One launch per tree level (reduction_levels.cuh): each block reduces PER_BLOCK elements. */
#define PER_BLOCK (2 * THREADS)
#define REDUCE_KERNEL reduce_first_add

} /* namespace */

#include "reduction_levels.cuh"
