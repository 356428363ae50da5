/* Lab 02, rung 3: rows of 40 floats, window[128][40]: a 2-way conflict.
 *
 * Changed from rung 2: 40-float rows instead of 48. Why: with 16-byte reads the 8 threads of
 * a quarter-warp hit gcd(40/4, 8) = 2 threads per bank group: 2 passes per read instead of 4.
 * The time follows the pass count: about twice as fast again. */
#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */
#define ROW 40     /* floats per thread's row of the window: ROLLING_WINDOW + 8 */

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
