/* Cheat (or a bug that passes where warps run in index order): lab 07 in one block of 8 warps.
 * Each warp adds its sum to a __shared__ total with atomicAdd, and the last warp by index copies
 * the total out right after its own atomicAdd, with no __syncthreads(): it counts on every other
 * warp having added first. The read of the total is no data race (a plain read beside other
 * threads' atomics reads one value or the other), so the race checker is silent; the result is
 * right only when warp 7 runs last. A GPU gives no such order (most runs lose some warps' sums),
 * and the CPU emulator runs each correctness check's call under a seeded order of warps and its
 * reverse: warp 7 is last in at most one of them, so some check fails in every run.
 * lab: reduction
 * where: emu
 * expect: correct=FAIL */
#include "reduction.h"

#define THREADS 256

__global__ void sum_one_block(float *result, const float *in, long long n)
{
    __shared__ float total;
    if (threadIdx.x == 0)
        total = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (long long i = threadIdx.x; i < n; i += THREADS)
        acc += in[i];
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&total, acc);
        if (threadIdx.x / 32 == THREADS / 32 - 1) /* the last warp: "everyone is done by now" */
            *result = total;
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    sum_one_block<<<1, THREADS, 0, stream>>>(result, in, n);
}
