/* Lab 02, rung 4: rows of 36 floats, window[128][36]: no conflict with 16-byte reads.
 *
 * Changed from rung 3: 36-float rows (padding of 16 bytes). Why: gcd(36/4, 8) = 1, so the 8
 * threads of a quarter-warp read 8 different 16-byte bank groups, all 32 banks, in one pass.
 * Conflict-free, and rows stay 16-byte aligned, so nvcc keeps its LDS.128: 8 reads of the
 * window per step instead of 32. From here on shared-memory bandwidth, not conflicts, sets the
 * pace (lab README, "Measured"). */
#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */
#define ROW 36     /* floats per thread's row of the window: ROLLING_WINDOW + 4 */

__global__ void __launch_bounds__(THREADS)
rolling_max_kernel(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ __align__(16) float window[THREADS][ROW];

    const int s = blockIdx.x * THREADS + threadIdx.x; /* this thread's series */
    if (s >= series)
        return; /* no barrier below: each thread only ever touches its own row */
    float *w = window[threadIdx.x];
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k] = -INFINITY; /* an empty slot never wins the maximum */

    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1 /* one step per iteration: every layout reads its whole window every step */
    for (int t = 0; t < steps; t++) {
        const float x = x1;
        x1 = x2;
        x2 = t + 2 < steps ? in[(size_t)(t + 2) * series + s] : 0.0f; /* coalesced */
        w[t % ROLLING_WINDOW] = x;
        float m = w[0];
        for (int k = 1; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[k]);
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
