/* Honest: lab 07 with one float atomicAdd per warp straight into the result (cleared first).
 * The warps' partial sums arrive in whatever order the GPU (or the CPU emulator's schedule)
 * runs them, so the sum's rounding changes from run to run and from order to order, always
 * within the float bound the grader allows: an order-dependent result that is still right.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

__global__ void sum_warp_atomics(float *result, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0)
        atomicAdd(result, acc);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 64)
        blocks = 64;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    sum_warp_atomics<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n);
}
