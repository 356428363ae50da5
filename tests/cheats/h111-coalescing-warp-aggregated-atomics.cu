/* Honest: lab 01 with a work queue: each warp takes its next 32 elements from one of four
 * global counters (its warp number mod 4), lane 0 taking the ticket with atomicAdd and sharing
 * it with __shfl_sync (warp-aggregated atomics); a kernel of one warp zeroes the counters first.
 * Right, coalesced, and on a GPU slow: every warp of the grid queues on four addresses. The
 * CPU emulator's counts see the coalesced loads and stores and not what the atomics cost (the
 * contention for an address), so the estimate stands down and says why.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your counted call made [0-9]+ atomic operations on global memory \(on 4 addresses\) */
#include "coalescing.h"

#define QUEUES 4

__device__ unsigned long long queue_next[QUEUES];

__global__ void reset_queues()
{
    if (threadIdx.x < QUEUES)
        queue_next[threadIdx.x] = 0;
}

__global__ void queued(float *out, const float *in, const float *scale, const float *bias,
                       int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    const unsigned lane = threadIdx.x % 32;
    const unsigned q = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) % QUEUES;
    const size_t share = (n + QUEUES - 1) / QUEUES, from = q * share,
                 to = from + share < n ? from + share : n;
    while (true) {
        unsigned long long ticket = 0;
        if (lane == 0)
            ticket = atomicAdd(&queue_next[q], 32ull);
        ticket = __shfl_sync(0xffffffffu, ticket, 0);
        const size_t i = from + ticket + lane;
        if (from + ticket >= to)
            break;
        if (i < to)
            out[i] = in[i] * scale[i / cols] + bias[i / cols];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    reset_queues<<<1, 32, 0, stream>>>();
    queued<<<264, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
