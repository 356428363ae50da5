/* tail_sliced.cuh - lab 08's ladder rungs 1 and 2, written once: each item's rounds cut into
 * SLICES slices, one block each, whose partial sums add into the zeroed output with atomicAdd.
 * A rung defines SLICES before it includes this file. */
#ifndef SLICES
#error "define SLICES (blocks per item) before including tail_sliced.cuh"
#endif

#include "tail.h"
#include "check.h"

namespace {

#define ILP 4       /* independent samples in flight per thread (lab 04) */

__global__ void __launch_bounds__(TAIL_LANES, 1)
tail_slice_kernel(unsigned *out, const unsigned *seeds, int rounds)
{
    const unsigned item = blockIdx.x / SLICES, slice = blockIdx.x % SLICES, lane = threadIdx.x;
    const unsigned seed = seeds[item];
    const int r1 = (int)((long long)rounds * (slice + 1) / SLICES); /* this slice: [r, r1) */
    int r = (int)((long long)rounds * slice / SLICES);
    unsigned acc = 0;
    for (; r + ILP <= r1; r += ILP) {
#pragma unroll
        for (int k = 0; k < ILP; k++)
            acc += tail_sample(seed, item, lane, (unsigned)(r + k));
    }
    for (; r < r1; r++)
        acc += tail_sample(seed, item, lane, (unsigned)r);
    /* The item's SLICES blocks add into the same results. Unsigned addition wraps, so the
     * order does not matter and the sum is exact. */
    atomicAdd(&out[(size_t)item * TAIL_LANES + lane], acc);
}

} /* namespace */

void tail(unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream)
{
    /* Slices add into their item's results: start them at zero. */
    CUDA_CHECK(cudaMemsetAsync(out, 0, (size_t)items * TAIL_LANES * sizeof(unsigned), stream));
    tail_slice_kernel<<<(unsigned)items * SLICES, TAIL_LANES, 0, stream>>>(out, seeds, rounds);
    CUDA_CHECK_LAUNCH();
}
