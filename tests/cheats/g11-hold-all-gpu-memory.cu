/* Cheat (or carelessness): on its first call, allocate all the GPU memory there is and keep it,
 * then answer honestly. The grader's next allocation finds none: the harness ends the student's
 * process, finds that it held nearly all of it, and fails the check naming GPU memory, never
 * an error of the grader's ("could not run").
 * lab: coalescing
 * where: gpu
 * expect: correct=FAIL
 * expect: message=out of GPU memory: .*your process held
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    hold_all_device_memory();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
