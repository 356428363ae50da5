/* Honest: lab 01 with the debugging output a student leaves in, on every call: printf,
 * std::cout, fprintf(stderr) and a bare write(2) on the host, and a device printf from the
 * first thread of the kernel (a row of blocks per matrix row: no division). All of it
 * reaches the log of the check that printed it, in order (the host's lines before the
 * kernel's, printed at the synchronisation after it): each visible check's log holds its
 * own size.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-error
 * expect: log-has@0=host printf: 1 x 1\n.*cout: 1 x 1\n.*stderr: 1 x 1\n.*write\(2\)\n.*device printf: 1 x 1, grid 1 x 1\n
 * expect: log-has@1=host printf: 1 x 33\n.*device printf: 1 x 33
 * expect: log-has@3=host printf: 33 x 33\n.*device printf: 33 x 33, grid 1 x 33
 * expect: log-has@6=device printf: 257 x 4099 */
#include "coalescing.h"
#include <iostream>
#include <stdio.h>
#include <unistd.h>

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
        printf("device printf: %d x %d, grid %u x %u\n", rows, cols, gridDim.x, gridDim.y);
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        if (c < cols)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    printf("host printf: %d x %d\n", rows, cols);
    std::cout << "cout: " << rows << " x " << cols << std::endl;
    fprintf(stderr, "stderr: %d x %d\n", rows, cols);
    if (write(2, "write(2)\n", 9) != 9)
        return;
    const dim3 grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    scale_rows<<<grid, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
