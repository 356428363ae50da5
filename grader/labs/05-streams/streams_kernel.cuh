/* streams_kernel.cuh - lab 05's f, the one definition both sides compile: the shim hands it
 * to the student's code (grader/labs/05-streams/shim_untrusted.cu), and the harness times it alone
 * for the ideal pipeline (grader/labs/05-streams/problem.cu). One element per thread, k dependent FMAs:
 * f(x) = k times x <- fmaf(x, A, B). At full occupancy each scheduler has 16 warps to cover the
 * 4-cycle FMA latency, so the SMs run near their FMA peak: the kernel is compute-bound and its
 * time is k * n / (FMA rate), which is what the calibration scales. */
#ifndef GRADER_STREAMS_KERNEL_CUH
#define GRADER_STREAMS_KERNEL_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#define STREAMS_A (1.0f - 0x1p-13f)
#define STREAMS_B 0x1p-14f
#define PROCESS_THREADS 256

static __global__ void __launch_bounds__(PROCESS_THREADS)
process_kernel(float *__restrict__ out, const float *__restrict__ in, size_t n, int k)
{
    const size_t i = blockIdx.x * (size_t)PROCESS_THREADS + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
#pragma unroll 16
    for (int j = 0; j < k; j++)
        x = fmaf(x, STREAMS_A, STREAMS_B);
    out[i] = x;
}
#endif
