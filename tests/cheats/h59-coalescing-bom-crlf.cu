/* Honest: lab 01 saved by an editor on Windows: a UTF-8 byte-order mark at the top and CRLF
 * line ends, a macro continued over lines with a backslash. nvcc builds it, and so must the
 * emulator.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "coalescing.h"
#include "check.h"

#define INDEX(r, c, cols) \
    ((size_t)(r) * (cols) + (c))

__global__ void scale_rows_crlf(float *out, const float *in, const float *scale,
                                const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        if (c < cols)
            out[INDEX(r, c, cols)] = in[INDEX(r, c, cols)] * scale[r] + bias[r];
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(256), grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    scale_rows_crlf<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    CUDA_CHECK_LAUNCH();
}
