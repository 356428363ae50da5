/* Cheat (or a bug that passes where blocks run in index order): lab 07 with one kernel. Every
 * block writes its partial sum to the scratch, fences, and the block with the highest index
 * adds all the partials and writes the result, with no ticket (atomicAdd on a counter) to tell
 * it that the others are done: it counts on blocks finishing in index order. Every access is
 * ordered by a fence as the race checker sees it, so it reports nothing; the result is right
 * only when the last block by index runs after all the others. Blocks run in no fixed order on
 * a GPU, and the CPU emulator hands them to its workers in a seeded order and, for the same
 * check, in the reverse order: some check fails in every run.
 * lab: reduction
 * where: emu
 * expect: correct=FAIL */
#include "reduction.h"

#define THREADS 256

__global__ void sum_blocks(float *result, float *partial, const float *in, long long n)
{
    __shared__ float warp_sums[THREADS / 32];
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < THREADS / 32; ++w)
            s += warp_sums[w];
        partial[blockIdx.x] = s;
        __threadfence();
        if (blockIdx.x == gridDim.x - 1) { /* "the last block is the last to finish" */
            float total = 0.0f;
            for (unsigned b = 0; b < gridDim.x; ++b)
                total += partial[b];
            *result = total;
        }
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 64)
        blocks = 64;
    if (blocks < 2)
        blocks = 2;
    sum_blocks<<<(unsigned)blocks, THREADS, 0, stream>>>(result, scratch, in, n);
}
