/* Cheat: a kernel as fast as the reference's, and every synchronize of this process made a
 * no-op, so each call answers "done" while its kernels are still queued. The harness times
 * from outside and compares every output afterwards: what runs after "done" must be billed or
 * caught, not gained. Honest, this file runs at the reference's speed (ratio about 1); the
 * measured ratio must not be much higher. The harness's idle probe finds its kernels still
 * running after each answer: the check fails on that evidence.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: ratio-below=1.06
 * expect: message=still running on the GPU after your call returned */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_wait(void) { return cudaSuccess; }
static cudaError_t no_wait_stream(cudaStream_t) { return cudaSuccess; }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if ((size_t)rows * cols < (1u << 24)) { /* correctness sizes: honest */
        honest_coalescing(out, in, scale, bias, rows, cols, stream);
        return;
    }
    static int patched;
    if (!patched) {
        patch_import((void *)&no_wait, "cudaDeviceSynchronize", (void *)&no_wait);
        patch_import((void *)&no_wait, "cudaStreamSynchronize", (void *)&no_wait_stream);
        patched = 1;
    }
    fast_coalescing(out, in, scale, bias, rows, cols, stream);
}
