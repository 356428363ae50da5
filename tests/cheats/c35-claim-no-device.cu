/* Cheat: make a failing check look like the machine's fault. At one size the call computes
 * nothing and makes the grader's own error check (the shim's cudaGetLastError, in this
 * process) say cudaErrorNoDevice, an error that means "no usable GPU": taken at its word, the
 * check would be an ERROR of the grader's ("could not run"), which an instructor reads as
 * "run it again". The harness weighs the claim: the reference's process, started the same
 * way in the same sandbox, runs here, so the check fails as the student's own, and says why.
 * lab: coalescing
 * where: emu gpu
 * expect: fails-only=^7 x 1021: prime row length$
 * expect: message=an error that means no usable GPU, yet the reference's process
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_device(void) { return cudaErrorNoDevice; }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if (rows == 7 && cols == 1021) {
        patch_import((void *)&no_device, "cudaGetLastError", (void *)&no_device);
        return;
    }
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
