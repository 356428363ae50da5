/* Lab 02, rung 5: 32-float rows again, with an XOR swizzle instead of padding.
 *
 * Changed from rung 4: no padding at all. Each thread's row keeps 32 floats, but its eight
 * 16-byte groups are stored in a permuted order: group g of thread t goes to position
 * g ^ (t % 8). Why: the 8 threads of a quarter-warp (t % 8 = 0..7) reading group g then sit in
 * 8 different positions, 8 different 16-byte bank groups: one pass, like rung 4, with no
 * memory spent and every 16-byte alignment kept. This is the trick lab 06's reference uses for
 * its transpose tile, where padding would break the 16-byte stores. */
#include "banks.h"
#include "check.h"

#include <math.h>

namespace {

#define THREADS 128 /* series per block: 4 warps */

/* Word of slot k in thread t's row: the 16-byte group (k / 4) is XORed with t % 8, the word
 * inside the group (k % 4) stays. */
__device__ __forceinline__ int swizzled(int t, int k)
{
    return ((((k >> 2) ^ t) & 7) << 2) | (k & 3);
}

__global__ void __launch_bounds__(THREADS)
rolling_max_kernel(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ __align__(16) float window[THREADS][ROLLING_WINDOW];

    const int t = threadIdx.x;
    const int s = blockIdx.x * THREADS + t; /* this thread's series */
    if (s >= series)
        return;
    float *w = window[t];
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k] = -INFINITY; /* every slot, in whatever order: all start empty */

    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1
    for (int t_step = 0; t_step < steps; t_step++) {
        const float x = x1;
        x1 = x2;
        x2 = t_step + 2 < steps ? in[(size_t)(t_step + 2) * series + s] : 0.0f;
        w[swizzled(t, t_step % ROLLING_WINDOW)] = x;
        /* The maximum does not care about order: read the row as it lies, 16 bytes at a time. */
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[swizzled(t, k)]);
        out[(size_t)t_step * series + s] = m;
    }
}

} /* namespace */

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((series + THREADS - 1) / THREADS);
    rolling_max_kernel<<<blocks, THREADS, 0, stream>>>(out, in, steps, series);
    CUDA_CHECK_LAUNCH();
}
