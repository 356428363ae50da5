/* Cheat (or a bug that usually passes on a GPU): lab 07 in one block of 8 warps. Each warp adds
 * its sum to a __shared__ total with atomicAdd and then writes the total it saw to the result,
 * a plain store: eight writes of eight different values to one word, with nothing ordering
 * them. Whichever warp stores last leaves its value; when that is the warp that added last, the
 * result is the full sum, otherwise part of it. The CPU emulator reports two writes of
 * different values to one word by threads of different warps as a data race (writes of the
 * same value stay allowed: h40), in the check's log: "data race on device memory: two writes
 * of different values".
 * lab: reduction
 * where: emu
 * expect: correct=FAIL
 * expect: no-error */
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
    if (threadIdx.x % 32 == 0)
        *result = atomicAdd(&total, acc) + acc; /* the total so far, this warp's included */
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    sum_one_block<<<1, THREADS, 0, stream>>>(result, in, n);
}
