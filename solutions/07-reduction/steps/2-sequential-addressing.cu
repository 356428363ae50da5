/* Lab 07, rung 2 (Harris's kernel 3): sequential addressing.
 *
 * Changed from rung 1: the tree halves the distance instead of doubling it: s runs from 128
 * down to 1 and thread t adds sdata[t + s] into sdata[t] while t < s. Why: the active threads
 * are still the low ones (whole warps retire), and a warp's 32 lanes now read 32 consecutive
 * words: no bank conflict. Still wasteful: half the threads are idle from the first level on,
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

/* One launch per tree level: each block reduces PER_BLOCK elements to one partial sum, and
 * the partial sums ping-pong between two halves of scratch until one value is left. */
#define PER_BLOCK (THREADS)

} /* namespace */

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    float *level[2] = {scratch, scratch + (n + THREADS - 1) / THREADS};
    const float *src = in;
    long long m = n;
    int pass = 0;
    do {
        const long long blocks = (m + PER_BLOCK - 1) / PER_BLOCK;
        float *dst = blocks == 1 ? result : level[pass & 1];
        reduce_sequential<<<(unsigned)blocks, THREADS, 0, stream>>>(dst, src, m);
        CUDA_CHECK_LAUNCH();
        src = dst;
        m = blocks;
        pass++;
    } while (m > 1);
}
