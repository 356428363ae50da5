/* A lab 01 submission for tests/stop/test_stop.py: the skeleton's kernel, and every call first
 * sleeps for a minute, so that a stop sent "while the student's code runs" always finds it
 * running (the sandboxed worker, its harness and the driver all alive). Never graded to the
 * end: every run of it is stopped. */
#include "coalescing.h"

#include <unistd.h>

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    sleep(60);
    const dim3 block(32, 8);
    const dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
