/* Honest: lab 02 with the window in registers, shifted: each thread keeps its series' last 32
 * values in a fully unrolled array whose every index is known at compile time (so it lives in
 * registers, not in shared or local memory), moves them down one place a step, and takes their
 * maximum. No shared memory, so no bank to conflict on; 32 moves and 31 comparisons a step.
 * lab: banks
 * where: emu gpu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect@emu: output-has=ESTIMATE \(not a grade\): none for this lab: its speed turns on how the compiler widens your shared-memory reads */
#include "banks.h"

#include <math.h>

#define THREADS 256

__global__ void __launch_bounds__(THREADS) shift_window(float *__restrict__ out,
                                                        const float *__restrict__ in, int steps,
                                                        int series)
{
    const int s = blockIdx.x * THREADS + threadIdx.x;
    if (s >= series)
        return;
    float w[ROLLING_WINDOW]; /* w[0] the newest value, w[31] the oldest */
#pragma unroll
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k] = -INFINITY;
    for (int t = 0; t < steps; t++) {
#pragma unroll
        for (int k = ROLLING_WINDOW - 1; k > 0; k--)
            w[k] = w[k - 1];
        w[0] = in[(size_t)t * series + s]; /* a warp reads 32 consecutive floats */
        float m = w[0];
#pragma unroll
        for (int k = 1; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[k]);
        out[(size_t)t * series + s] = m;
    }
}

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    shift_window<<<(series + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, steps, series);
}
