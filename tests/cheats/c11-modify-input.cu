/* Cheat: change the input so that the answer is easy (every input 0: out = bias), then
 * answer for the changed input.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=modified an input */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    cudaMemsetAsync((void *)in, 0, (size_t)rows * cols * sizeof(float), stream);
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
