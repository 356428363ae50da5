/* Honest: lab 02 without shared memory at all: the van Herk / Gil-Werman rolling maximum in
 * registers. One thread per series walks time in chunks of ROLLING_WINDOW steps; a step's
 * window is the suffix maximum of the previous chunk joined with the prefix maximum of the
 * current one. A warp reads and writes 32 consecutive series of one step: coalesced, and no
 * bank to conflict on.
 * lab: banks
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "banks.h"
#include <math.h>

template <int W>
__global__ void __launch_bounds__(128) vhgw(float *__restrict__ out, const float *__restrict__ in,
                                            int steps, int series)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= series)
        return;
    float suffix[W]; /* suffix[j] = max of the previous chunk's steps j .. W-1 */
#pragma unroll
    for (int j = 0; j < W; j++)
        suffix[j] = -INFINITY;
    for (int t0 = 0; t0 < steps; t0 += W) {
        float v[W];
#pragma unroll
        for (int j = 0; j < W; j++)
            v[j] = t0 + j < steps ? in[(size_t)(t0 + j) * series + s] : -INFINITY;
        float prefix = -INFINITY;
#pragma unroll
        for (int j = 0; j < W; j++) {
            prefix = fmaxf(prefix, v[j]);
            const float m = j + 1 < W ? fmaxf(suffix[j + 1], prefix) : prefix;
            if (t0 + j < steps)
                out[(size_t)(t0 + j) * series + s] = m;
        }
        float acc = -INFINITY;
#pragma unroll
        for (int j = W - 1; j >= 0; j--) {
            acc = fmaxf(acc, v[j]);
            suffix[j] = acc;
        }
    }
}

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    vhgw<ROLLING_WINDOW><<<(series + 127) / 128, 128, 0, stream>>>(out, in, steps, series);
}
