/* Cheat: answer (slowly), then leave a long kernel running that eats memory bandwidth while
 * the reference is timed (the grader's synchronize made a no-op, so the call returns first).
 * The harness waits for the GPU to be idle after each of its timed units and bills the wait to
 * it, so the reference is never timed beside the flood and the check fails on speed (0.02x on
 * an H200); the idle probe's record of the work left running is kept as evidence.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_wait(void) { return cudaSuccess; }

static __global__ void flood(const float4 *p, size_t n, float *sink, int reps)
{
    float acc = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
             i += (size_t)gridDim.x * blockDim.x)
            acc += p[i].x;
    if (acc == 1234.5f)
        *sink = acc;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    slow_coalescing(out, in, scale, bias, rows, cols, stream);
    if ((size_t)rows * cols > (1u << 24)) {
        static cudaStream_t side;
        if (!side) {
            cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
            patch_import((void *)&no_wait, "cudaDeviceSynchronize", (void *)&no_wait);
        }
        cudaStreamSynchronize(stream); /* the answer is complete */
        flood<<<1024, 256, 0, side>>>((const float4 *)in, (size_t)rows * cols / 4, out, 8);
    }
}
