/* Cheat: a slow kernel, and the grader's own synchronize (the shim's, in this process) made
 * a no-op, so the call "returns" before its kernel has run: a grader that trusts the
 * student's process to say when it is done would time next to nothing. The harness waits for
 * the GPU to be idle after each call (billing the wait) and fails the check on what its probe
 * saw: work still running after the call answered.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL
 * expect: message=still running on the GPU after your call returned */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_wait(void) { return cudaSuccess; }
static cudaError_t no_wait_stream(cudaStream_t) { return cudaSuccess; }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int patched;
    if (!patched && (size_t)rows * cols > (1u << 24)) {
        patch_import((void *)&no_wait, "cudaDeviceSynchronize", (void *)&no_wait);
        patch_import((void *)&no_wait, "cudaStreamSynchronize", (void *)&no_wait_stream);
        patched = 1;
    }
    slow_coalescing(out, in, scale, bias, rows, cols, stream);
}
