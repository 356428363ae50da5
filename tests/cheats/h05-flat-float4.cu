/* Honest control for g08-return-before-done: the same fast kernel, with nothing patched. Its
 * ratio to the reference is what g08's must not exceed by much.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    fast_coalescing(out, in, scale, bias, rows, cols, stream);
}
