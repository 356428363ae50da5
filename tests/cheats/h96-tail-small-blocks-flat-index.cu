/* Honest: lab 08 with the unit of scheduling made smaller by the block, not by the rounds: one
 * thread per result, numbered flat over all items' lanes, in blocks of 128 threads (an eighth
 * of an item), so the leftover item's work lands on eight SMs instead of one. Each thread keeps
 * four samples in flight, as the skeleton does. No atomics, no workspace.
 * lab: tail
 * where: emu gpu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect@emu: output-has=ESTIMATE \(not a grade\): none for this lab: its speed turns on each block's arithmetic
 * expect@emu: output-has=\(no points\) \.* SKIP [^\n]*\n      ESTIMATE \(not a grade\): as above\n
 *   (the second speed check's estimate, the same as the first's, is not said in full again) */
#include "tail.h"

#define THREADS 128
#define ILP 4

__global__ void __launch_bounds__(THREADS) per_result(unsigned *out, const unsigned *seeds,
                                                      int items, int rounds)
{
    const long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (i >= (long long)items * TAIL_LANES)
        return;
    const unsigned item = (unsigned)(i / TAIL_LANES), lane = (unsigned)(i % TAIL_LANES);
    const unsigned seed = seeds[item];
    unsigned acc[ILP] = {0, 0, 0, 0};
    int r = 0;
    for (; r + ILP <= rounds; r += ILP)
#pragma unroll
        for (int k = 0; k < ILP; k++)
            acc[k] += tail_sample(seed, item, lane, (unsigned)(r + k));
    for (; r < rounds; r++)
        acc[0] += tail_sample(seed, item, lane, (unsigned)r);
    out[i] = acc[0] + acc[1] + acc[2] + acc[3];
}

void tail(unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream)
{
    const long long results = (long long)items * TAIL_LANES;
    const unsigned blocks = (unsigned)((results + THREADS - 1) / THREADS);
    per_result<<<blocks, THREADS, 0, stream>>>(out, seeds, items, rounds);
}
