/* Honest: lab 01 with a debugging printf left in the kernel, one line per element: the
 * 257 x 4099 check prints over a million lines from the device (about 30 MB), every other
 * check a line per element too. A GPU's printf buffer keeps what it holds, the emulator prints
 * every line; either way the check ends with its own verdict, in about the time the printing
 * takes, and its log keeps the first 1 MB with a note of what was left out: output is bounded,
 * never a reason for a check to hang.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error
 * expect: log-under=1100000
 * expect: log-has@6=out\[[0-9]+\] = .*more bytes of output were not kept */
#include "coalescing.h"
#include <stdio.h>

__global__ void scale_rows_printing(float *out, const float *in, const float *scale,
                                    const float *bias, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols);
        out[i] = in[i] * scale[r] + bias[r];
        printf("out[%llu] = %f\n", (unsigned long long)i, out[i]);
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const size_t n = (size_t)rows * cols;
    unsigned blocks = (unsigned)((n + 255) / 256);
    scale_rows_printing<<<blocks < 65535 ? blocks : 65535, 256, 0, stream>>>(out, in, scale, bias,
                                                                             rows, cols);
}
