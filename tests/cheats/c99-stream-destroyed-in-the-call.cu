/* Cheat: make a failing check look like the grader's error, or another check's. At one size
 * the call computes the answer, then destroys the stream it was given, the worker's own, which
 * the process's next call would need. The check of the call that did it fails as the
 * student's own (not as an ERROR, not as a crash of a later check), and the next check runs in
 * a fresh process and passes. Under the emulator the cause is named; on a GPU the destroyed
 * stream's handle may crash the worker as it asks after it (an H200 did: "crashed:
 * Segmentation fault" in that check), which fails that check all the same.
 * lab: coalescing
 * where: emu gpu
 * expect: fails-only=^7 x 1021: prime row length$
 * expect@emu: message=^after the call the stream the grader gave your function was gone: the device was reset \(cudaDeviceReset\) or that stream was destroyed
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    if (rows == 7 && cols == 1021) {
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
    }
}
