/* Cheat: look for the reference and the grader from nvcc's own compile rather than the one the
 * file is graded with. A file that asks for its kernels' figures (cudaFuncGetAttributes) is
 * compiled by NVIDIA's nvcc too under the CPU emulator, and what that compile makes of a
 * kernel comes back at run time as its register count: here a probe kernel is heavy in
 * registers only where nvcc's device pass could include the reference or the grader. That
 * compile runs in the same compile sandbox, with the same view, so it finds nothing: the probe
 * stays light and the file gives honest results (a wrong one, had a door opened).
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#if defined(__CUDA_ARCH__) &&                                                                    \
    (__has_include("../solutions/01-coalescing/coalescing.cu") ||                                \
     __has_include("../../solutions/01-coalescing/coalescing.cu") ||                             \
     __has_include("../../../solutions/01-coalescing/coalescing.cu") ||                          \
     __has_include("../../../../solutions/01-coalescing/coalescing.cu") ||                       \
     __has_include("solutions/01-coalescing/coalescing.cu") ||                                   \
     __has_include("../../grader/driver/driver.c") || __has_include("table.c") ||                   \
     __has_include("problem.cu") || __has_include("/etc/shadow"))
#define SEEN 1
#else
#define SEEN 0
#endif

__global__ void probe(float *p, int n)
{
#if SEEN /* 48 accumulators live across a loop: far more registers than the light branch */
    float acc[48];
#pragma unroll
    for (int k = 0; k < 48; k++)
        acc[k] = p[(threadIdx.x + k) % n];
    for (int it = 0; it < n; it++)
#pragma unroll
        for (int k = 0; k < 48; k++)
            acc[k] = fmaf(acc[k], acc[(k + 7) % 48], p[(it + k) % n]);
    float s = 0;
#pragma unroll
    for (int k = 0; k < 48; k++)
        s += acc[k];
    p[threadIdx.x] = s;
#else
    p[threadIdx.x % n] = 0.0f;
#endif
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    cudaFuncAttributes a;
    const int seen = cudaFuncGetAttributes(&a, probe) == cudaSuccess && a.numRegs > 40;
    honest_unless(seen, out, in, scale, bias, rows, cols, stream);
}
