/* Honest: lab 01 with the debugging output a student leaves in, on every call: printf,
 * std::cout, fprintf(stderr) and a bare write(2) on the host, and a device printf from the
 * first thread of the kernel. All of it reaches the log of the check that printed it, in
 * order (the host's lines before the kernel's, printed at the synchronisation after it):
 * each visible check's log holds its own size.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-error
 * expect: log-has@0=host printf: 1 x 1\n.*cout: 1 x 1\n.*stderr: 1 x 1\n.*write\(2\)\n.*device printf: 1 x 1, block 0 of 1\n
 * expect: log-has@1=host printf: 1 x 33\n.*device printf: 1 x 33
 * expect: log-has@3=host printf: 33 x 33\n.*device printf: 33 x 33, block 0 of 5
 * expect: log-has@6=device printf: 257 x 4099 */
#include "coalescing.h"
#include <iostream>
#include <stdio.h>
#include <unistd.h>

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i == 0)
        printf("device printf: %d x %d, block %u of %u\n", rows, cols, blockIdx.x, gridDim.x);
    if (i < n) {
        const int r = (int)(i / cols);
        out[i] = in[i] * scale[r] + bias[r];
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    printf("host printf: %d x %d\n", rows, cols);
    std::cout << "cout: " << rows << " x " << cols << std::endl;
    fprintf(stderr, "stderr: %d x %d\n", rows, cols);
    if (write(2, "write(2)\n", 9) != 9)
        return;
    const size_t n = (size_t)rows * cols;
    const unsigned blocks = (unsigned)((n + 255) / 256);
    scale_rows<<<blocks, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
