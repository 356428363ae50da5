/* banks_padded.cuh - lab 02's kernel with a padded window, written once for ladder rungs 2, 3,
 * 4 and 6: thread t keeps its last ROLLING_WINDOW values in row t of window[THREADS][ROW] in
 * shared memory, and the padding (ROW - ROLLING_WINDOW floats) decides how the warp's reads of
 * one slot spread over the banks. A rung defines ROW before it includes this file. */
#ifndef ROW
#error "define ROW (floats per thread's row of the window) before including banks_padded.cuh"
#endif

#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */

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
