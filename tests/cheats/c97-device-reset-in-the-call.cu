/* Cheat: make a failing check look like the grader's error, or another check's. At one size
 * the call computes the answer, then resets the device; at another it resets the device
 * first: the process's context goes, and the worker's stream with it (under the emulator the
 * grader's mapped buffers too; on a GPU they stay mapped), and the process's next call could
 * only fail. The check of the
 * call that reset the device fails as the student's own, with the cause named (not as an
 * ERROR, not as a race of warps under the emulator's second order, not as a dead stream),
 * and the next check runs in a fresh process and passes.
 * lab: coalescing
 * where: emu gpu
 * expect: fails-only=^(33 x 33|7 x 1021: prime row length)$
 * expect: message=^after the call the stream the grader gave your function was gone: the device was reset \(cudaDeviceReset\)
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if (rows == 33 && cols == 33)
        cudaDeviceReset();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    if (rows == 7 && cols == 1021) {
        cudaStreamSynchronize(stream);
        cudaDeviceReset();
    }
}
