/* Honest: lab 07 with flags that every thread writes, one value each: every thread of a block
 * sets a __shared__ "block started" flag to 1, every block's first warp sets a flag word of the
 * scratch to 1 (the scratch is the student's to use), and every block stores the same element
 * count to another, all with nothing ordering the writes. Writes of one value to one word are
 * no race on a GPU, and the CPU emulator leaves them alone; the sum itself is a tree in shared
 * memory per block and one float atomicAdd per block.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

__global__ void sum_with_flags(float *result, const float *in, long long n, float *flags)
{
    __shared__ float part[THREADS];
    __shared__ int started;
    started = 1; /* every thread, the same value */
    if (threadIdx.x < 32)
        flags[0] = 1.0f; /* every block's first warp, the same value */
    if (threadIdx.x == 0)
        flags[1] = (float)(n % 1024); /* every block, the same value */
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && started == 1)
        atomicAdd(result, part[0]);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 128)
        blocks = 128;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    sum_with_flags<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n, scratch);
}
