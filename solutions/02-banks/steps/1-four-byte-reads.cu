/* Lab 02, rung 1: the skeleton's layout, window[128][32], read 4 bytes at a time.
 *
 * Changed from the skeleton: nothing in the layout. The window is read through a volatile
 * pointer, so nvcc cannot merge 4 slots into one 16-byte LDS.128: every slot is one 4-byte LDS.
 * Why look at this first: it shows the conflict in its plain form. Slot k of thread t is word
 * 32t + k, bank k for all 32 threads of the warp: a 32-way conflict, 32 passes per read and
 * 32 reads per step, about 1024 passes where a conflict-free layout needs 32. It is SLOWER
 * than the skeleton (whose 16-byte reads are "only" 8-way): a step down before the climb,
 * and the clearest measurement of what a bank conflict costs. */
#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */

__global__ void __launch_bounds__(THREADS)
rolling_max_kernel(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ float window[THREADS][ROLLING_WINDOW];

    const int s = blockIdx.x * THREADS + threadIdx.x; /* this thread's series */
    if (s >= series)
        return;
    float *w = window[threadIdx.x];
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k] = -INFINITY;

    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1
    for (int t = 0; t < steps; t++) {
        const float x = x1;
        x1 = x2;
        x2 = t + 2 < steps ? in[(size_t)(t + 2) * series + s] : 0.0f;
        w[t % ROLLING_WINDOW] = x;
        const volatile float *v = w; /* one 4-byte LDS per slot: 32-way conflicted */
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, v[k]);
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
