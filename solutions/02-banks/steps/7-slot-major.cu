/* Lab 02, rung 7: the window stored slot-major, window[32][128]: conflict-free by layout.
 *
 * Changed from rung 6: no padding at all. Slot k of the block's 128 threads is one row of 128
 * consecutive words, so a warp reading its slot k reads 32 consecutive words: one per bank, one
 * pass, whatever the slot's index. Same instructions, same global traffic and occupancy as the
 * reference: what removing every conflict can buy, and the reference (a single float of
 * padding) matches it. What is left is the algorithm's own cost: 32 shared-memory reads for
 * every output, which keeps any window-in-shared-memory version near 0.4 of the memory's
 * bandwidth (the lesson's last section has the arithmetic, and a way past it). */
#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */

__global__ void __launch_bounds__(THREADS)
rolling_max_kernel(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ __align__(16) float window[ROLLING_WINDOW * THREADS];

    const int s = blockIdx.x * THREADS + threadIdx.x; /* this thread's series */
    if (s >= series)
        return; /* no barrier below: each thread only ever touches its own column */
    float *w = window + threadIdx.x; /* slot k of this thread: w[k * THREADS] */
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k * THREADS] = -INFINITY; /* an empty slot never wins the maximum */

    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1 /* one step per iteration: every layout reads its whole window every step */
    for (int t = 0; t < steps; t++) {
        const float x = x1;
        x1 = x2;
        x2 = t + 2 < steps ? in[(size_t)(t + 2) * series + s] : 0.0f; /* coalesced */
        w[(t % ROLLING_WINDOW) * THREADS] = x;
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[k * THREADS]);
        out[(size_t)t * series + s] = m;
    }
}

} /* namespace */

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((series + THREADS - 1) / THREADS);
    rolling_max_kernel<<<blocks, THREADS, 0, stream>>>(out, in, steps, series);
    CUDA_CHECK_LAUNCH();
}
