/* Honest: lab 07 in one kernel, the "last block done" way: each block writes its partial sum
 * into the scratch, makes it visible (__threadfence), and takes a ticket from a counter kept in
 * the scratch (all zero bits when the call starts); the block that draws the last ticket adds
 * the partials and writes the result. A shared-memory tree per block, unrolled by hand.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "reduction.h"

#define THREADS 256
#define MAX_BLOCKS 2048

__global__ void __launch_bounds__(THREADS) one_pass(float *result, const float *in, long long n,
                                                    float *scratch)
{
    __shared__ float s[THREADS];
    __shared__ bool last;
    float *partials = scratch;
    unsigned *tickets = (unsigned *)(scratch + MAX_BLOCKS);
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence(); /* the partial is visible to every block before the ticket is */
        last = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    float total = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        total += ((volatile float *)partials)[b];
    s[threadIdx.x] = total;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *result = s[0];
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long long blocks = (long long)sms * 8;
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    const long long needed = (n + THREADS - 1) / THREADS;
    if (blocks > needed)
        blocks = needed;
    one_pass<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n, scratch);
}
