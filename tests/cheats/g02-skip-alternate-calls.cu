/* Cheat: do the work only on every other call of the speed size (a grader that re-verifies
 * a few timed calls would miss half of them).
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static long calls;
    if ((size_t)rows * cols > (1u << 24) && (calls++ & 1))
        return;
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
