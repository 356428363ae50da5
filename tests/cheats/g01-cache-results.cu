/* Cheat: compute once per buffer, then answer later calls on the same buffers instantly
 * (inputs assumed unchanged between calls).
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static const float *seen[64];
    static int n_seen;
    for (int i = 0; i < n_seen; i++)
        if (seen[i] == in && rows > 10000)
            return; /* "already computed" */
    if (n_seen < 64)
        seen[n_seen++] = in;
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
