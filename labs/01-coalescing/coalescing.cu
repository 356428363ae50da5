/* Lab 01 - global-memory coalescing: YOUR FILE.
 *
 * Task: out[r][c] = in[r][c] * scale[r] + bias[r] on a row-major rows x cols matrix
 * (contract: grader/labs/01-coalescing/coalescing.h). Read labs/01-coalescing/README.md first.
 *
 * What is yours: everything in this file. Keep the function `coalescing` with its signature;
 * add kernels and helpers as you like. What is not: the contract header, the grader, and any
 * library that does the work for you. Grade it with `make grade LAB=coalescing`.
 *
 * This version is correct but slow: it maps threadIdx.x to the ROW. The 32 threads of a warp
 * then read addresses `cols` floats apart, so every load and store of the warp touches 32
 * different 32-byte sectors and uses 4 bytes of each. */
#include "coalescing.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    /* TODO(student): consecutive threads (threadIdx.x) should walk the contiguous dimension,
     * the column, so a warp reads 32 neighbouring floats: one 128-byte line, not 32 sectors. */
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
    /* TODO(student): once x walks columns, swap the grid too; then try float4 accesses.
     * gridDim.y is limited to 65535: a grid-stride loop covers taller matrices. */
    const dim3 block(32, 8);
    const dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    CUDA_CHECK_LAUNCH();
}
