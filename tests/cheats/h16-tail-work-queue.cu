/* Honest: lab 08 with a dynamic work queue: the work is cut into pieces (an item's quarter of
 * the lanes, a sixteenth of its rounds), a grid of persistent blocks (one wave) takes pieces
 * from an atomic counter until none is left, and each piece's sums are added into the output
 * with atomicAdd (unsigned addition wraps: any order gives the same bits). The counter lives in
 * a workspace allocated on the first call and reset on every call.
 * lab: tail
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "tail.h"

#define THREADS 256
#define QUARTERS (TAIL_LANES / THREADS)
#define ROUND_CUTS 16

static unsigned long long *g_next; /* the queue's counter, reused across calls */

__global__ void __launch_bounds__(THREADS) drain(unsigned *out, const unsigned *seeds, int items,
                                                 int rounds, unsigned long long *next)
{
    __shared__ unsigned long long piece;
    const int per_cut = (rounds + ROUND_CUTS - 1) / ROUND_CUTS;
    const unsigned long long pieces = (unsigned long long)items * QUARTERS * ROUND_CUTS;
    for (;;) {
        if (threadIdx.x == 0)
            piece = atomicAdd(next, 1ull);
        __syncthreads();
        const unsigned long long p = piece;
        __syncthreads(); /* everyone has read it before thread 0 takes the next */
        if (p >= pieces)
            return;
        const int cut = (int)(p % ROUND_CUTS);
        const int quarter = (int)(p / ROUND_CUTS % QUARTERS);
        const int item = (int)(p / ROUND_CUTS / QUARTERS);
        const unsigned lane = quarter * THREADS + threadIdx.x;
        const int r1 = (cut + 1) * per_cut < rounds ? (cut + 1) * per_cut : rounds;
        unsigned acc = 0;
        for (int r = cut * per_cut; r < r1; r++)
            acc += tail_sample(seeds[item], (unsigned)item, lane, (unsigned)r);
        if (cut * per_cut < r1)
            atomicAdd(&out[(size_t)item * TAIL_LANES + lane], acc);
    }
}

void tail(unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream)
{
    if (!g_next)
        cudaMalloc(&g_next, sizeof *g_next);
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, drain, THREADS, 0);
    cudaMemsetAsync(g_next, 0, sizeof *g_next, stream);
    cudaMemsetAsync(out, 0, (size_t)items * TAIL_LANES * sizeof(unsigned), stream);
    drain<<<sms * per_sm, THREADS, 0, stream>>>(out, seeds, items, rounds, g_next);
}
