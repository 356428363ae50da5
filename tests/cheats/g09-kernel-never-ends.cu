/* Cheat: answer correctly, and leave a kernel running forever on a stream of its own (the
 * grader's synchronize in this process made a no-op so that the call can return): it would
 * share the GPU with the reference while the reference is timed. The harness waits for the
 * GPU to be idle after every call; a call whose work never ends fails the check.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL
 * expect: message=still running */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_wait(void) { return cudaSuccess; }

static __global__ void spin_forever(volatile int *never)
{
    while (*never == 0) {
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    cudaEvent_t done;
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    cudaEventRecord(done, stream);
    cudaEventSynchronize(done); /* the answer is complete */
    cudaEventDestroy(done);
    static int launched;
    if (!launched && (size_t)rows * cols > (1u << 24)) {
        static int *never;
        static cudaStream_t side;
        cudaMalloc(&never, sizeof *never);
        cudaMemset(never, 0, sizeof *never);
        cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
        patch_import((void *)&no_wait, "cudaDeviceSynchronize", (void *)&no_wait);
        spin_forever<<<1, 32, 0, side>>>(never);
        launched = 1;
    }
}
