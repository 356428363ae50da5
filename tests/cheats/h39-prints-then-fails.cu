/* Honest but wrong: a lab 01 file with debugging output and three bugs, each after it has
 * printed (on the host, and from the kernel, flushed by a synchronisation):
 *  - 1 x 1: the kernel writes 0, a wrong answer;
 *  - 1 x 33: a launch of 1025 threads per block, a CUDA error (the worker is killed);
 *  - 31 x 1: a null pointer written on the host, a crash.
 * Each of the three fails, and what the code printed before it failed is in that check's
 * log; the terminal says where (the log of a wrong answer by its name, the lines of the
 * others under the failure). The other checks pass with their own output.
 * lab: coalescing
 * where: emu gpu
 * expect: fails-only=^(1 x 1|1 x 33|31 x 1)
 * expect: no-accusation
 * expect: log-has@0=host: 1 x 1\n.*device: 1 x 1\n
 * expect: log-has@1=host: 1 x 33\n.*device: 1 x 33\n.*host: launching 1025 threads
 * expect: log-has@2=host: 31 x 1\n.*device: 31 x 1\n.*host: about to crash
 * expect: log-has@3=host: 33 x 33\n.*device: 33 x 33
 * expect: output-has=what your code printed in this check: \S*coalescing\.0\.log
 * expect: output-has=\| host: launching 1025 threads
 * expect: output-has=output \(\S*coalescing\.2\.log\): */
#include "coalescing.h"
#include <stdio.h>

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, int wrong)
{
    const size_t n = (size_t)rows * cols;
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i == 0)
        printf("device: %d x %d\n", rows, cols);
    if (i < n) {
        const int r = (int)(i / cols);
        out[i] = wrong ? 0.0f : in[i] * scale[r] + bias[r];
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    printf("host: %d x %d\n", rows, cols);
    const size_t n = (size_t)rows * cols;
    scale_rows<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(out, in, scale, bias, rows, cols,
                                                                rows == 1 && cols == 1);
    if (rows == 1 && cols == 33) {
        cudaStreamSynchronize(stream);
        printf("host: launching 1025 threads\n");
        scale_rows<<<1, 1025, 0, stream>>>(out, in, scale, bias, rows, cols, 0);
    } else if (rows == 31 && cols == 1) {
        cudaStreamSynchronize(stream);
        printf("host: about to crash\n");
        *(volatile int *)nullptr = 1;
    }
}
