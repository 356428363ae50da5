/* Lab 07, rung 1 (Harris's kernel 2): interleaved addressing with a strided index.
 *
 * Changed from the skeleton: the test `tid % (2*s) == 0` becomes index = 2*s*tid, `if (index <
 * blockDim.x)`. Why: the active threads are now the lowest-numbered ones, packed into as few
 * warps as possible, so whole warps go idle as the tree narrows (the skeleton kept every warp
 * busy with one or two useful lanes), and the slow integer `%` is gone. New cost: thread t
 * touches word 2*s*t, so at s = 16 the 32 lanes of a warp land in 2 banks: a 16-way bank
 * conflict (lab 02). */
#include "reduction.h"
#include "check.h"

namespace {

#define THREADS 256 /* threads per block */

__global__ void reduce_strided_index(float *out, const float *in, long long n)
{
    __shared__ float sdata[THREADS];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * THREADS + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < THREADS; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < THREADS)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* One launch per tree level (reduction_levels.cuh): each block reduces PER_BLOCK elements. */
#define PER_BLOCK (THREADS)
#define REDUCE_KERNEL reduce_strided_index

} /* namespace */

#include "reduction_levels.cuh"
