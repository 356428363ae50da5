/* Lab 08 - the tail effect: YOUR FILE.
 *
 * Task: for every work item and lane, add up `rounds` Philox samples (contract and the exact
 * formula: grader/labs/08-tail/tail.h). Read labs/08-tail/README.md first.
 *
 * What is yours: everything in this file. Keep the function `tail` with its signature; add
 * kernels and helpers as you like, but use tail_sample() from the contract as it is: the work
 * itself is fixed, only how it is spread over the GPU is yours. Grade it with
 * `make grade LAB=tail`.
 *
 * This version is correct, and each block is as fast as a block can be: 1024 threads, four
 * independent samples in flight per thread, every SM's integer pipes full. It is slow for
 * another reason. It launches one block per work item, and the grader gives it one wave of
 * blocks (one block on every SM) plus ONE more: that last block runs alone on one SM, as long
 * as a whole wave, while the other SMs wait. Twice the time for 1% more work. */
#include "tail.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

#define ILP 4 /* independent samples in flight per thread (lab 04) */

/* __launch_bounds__(1024, 1): the compiler may give each thread up to 64 registers, and this
 * kernel takes more than 32, so one 1024-thread block fills an SM's register file: one block
 * per SM, and a wave of blocks is exactly one block per SM. */
__global__ void __launch_bounds__(TAIL_LANES, 1)
tail_item_kernel(unsigned *out, const unsigned *seeds, int rounds)
{
    const unsigned item = blockIdx.x, lane = threadIdx.x;
    const unsigned seed = seeds[item];
    unsigned acc = 0;
    int r = 0;
    for (; r + ILP <= rounds; r += ILP) {
#pragma unroll
        for (int k = 0; k < ILP; k++)
            acc += tail_sample(seed, item, lane, (unsigned)(r + k));
    }
    for (; r < rounds; r++)
        acc += tail_sample(seed, item, lane, (unsigned)r);
    out[(size_t)item * TAIL_LANES + lane] = acc;
}

void tail(unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream)
{
    /* TODO(student): one block per item makes the item the unit of scheduling, and the last
     * wave of a grid is as long as its longest block, however few blocks it holds. Make the
     * unit smaller than an item, so the leftover work spreads over every SM:
     *   - split each item's rounds into slices, one block (or one loop step) per slice, and
     *     add the slices' partial sums with atomicAdd into a zeroed output (unsigned addition
     *     wraps, so the order does not matter); or
     *   - launch a persistent grid of exactly one wave (SMs x blocks per SM, from
     *     cudaDeviceGetAttribute and cudaOccupancyMaxActiveBlocksPerMultiprocessor) and give
     *     every block an equal share of all items x rounds.
     * Never hard-code the SM count: the same file must remove the tail on any GPU. */
    tail_item_kernel<<<items, TAIL_LANES, 0, stream>>>(out, seeds, rounds);
    CUDA_CHECK_LAUNCH();
}
