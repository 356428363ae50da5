/* Lab 07, rung 2 (Harris's kernel 3): sequential addressing.
 *
 * Changed from rung 1: the tree halves the distance instead of doubling it: s runs from 128
 * down to 1 and thread t adds sdata[t + s] into sdata[t] while t < s. Why: the active threads
 * are still the low ones (whole warps skip the add, though they still loop and reach every
 * barrier), and a warp's 32 lanes now read 32 consecutive words: no bank conflict. Still wasteful: half the threads are idle from the first level on,
 * and each thread loads a single float, far too little in flight to keep DRAM busy. */
#include "reduction.h"
#include "check.h"

namespace {

#define THREADS 256 /* threads per block */

__global__ void reduce_sequential(float *out, const float *in, long long n)
{
    __shared__ float sdata[THREADS];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * THREADS + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
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
#define PER_BLOCK (THREADS)
#define REDUCE_KERNEL reduce_sequential

} /* namespace */

#include "reduction_levels.cuh"
