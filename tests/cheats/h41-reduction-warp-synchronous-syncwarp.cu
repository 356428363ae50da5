/* Honest: lab 07 with the classic unrolled last warp, done right: the final 64 partial sums are
 * added by warp 0 in shared memory, each step a read into a register, __syncwarp(), then the
 * write, and __syncwarp() again (no lockstep assumed, as Volta and later require). Blocks write
 * their partials to the scratch; a second launch of one block adds them the same way.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

__device__ void block_sum_to(float *out, float acc)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = THREADS / 2; k > 32; k /= 2) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        for (int k = 32; k > 0; k /= 2) {
            const float other = s[threadIdx.x + k];
            __syncwarp();
            s[threadIdx.x] += other;
            __syncwarp();
        }
        if (threadIdx.x == 0)
            *out = s[0];
    }
}

__global__ void partial_sums(float *partials, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    block_sum_to(&partials[blockIdx.x], acc);
}

__global__ void final_sum(float *result, const float *partials, int count)
{
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        acc += partials[i];
    block_sum_to(result, acc);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 256)
        blocks = 256;
    partial_sums<<<(unsigned)blocks, THREADS, 0, stream>>>(scratch, in, n);
    final_sum<<<1, THREADS, 0, stream>>>(result, scratch, (int)blocks);
}
