/* Lab 06 - matrix transpose: YOUR FILE.
 *
 * Task: out = transpose(in) for a row-major rows x cols float matrix of any shape (contract:
 * grader/labs/06-transpose/transpose.h). Read labs/06-transpose/README.md first.
 *
 * What is yours: everything in this file. Keep the function `transpose` with its signature;
 * add kernels and helpers as you like. What is not: the contract header, the grader, and any
 * library that does the work for you. Grade it with `make grade LAB=transpose`.
 *
 * This version is correct but slow. Each thread moves one element. Consecutive threads take
 * consecutive columns, so a warp's 32 reads are one 128-byte line of the input (coalesced);
 * but those 32 elements land in 32 different rows of the output, `rows` floats apart, so the
 * warp's 32 writes touch 32 different 32-byte sectors and use 4 bytes of each. */
#include "transpose.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

#define BLOCK_X 32 /* threads along the input's columns: one warp reads one 128-byte line */
#define BLOCK_Y 8  /* input rows per block and pass */

__global__ void transpose_kernel(float *out, const float *in, int rows, int cols)
{
    /* TODO(student): stage a tile through shared memory, so that the warp that writes an
     * output row segment reads it from the tile instead of from scattered input rows: then
     * both the global reads and the global writes are whole lines (README: "The ladder").
     * Then fix the tile's bank conflicts (lab 02), then move more data per thread and per
     * instruction (README: "The last 15%"). */
    const int c = blockIdx.x * BLOCK_X + threadIdx.x;
    if (c >= cols)
        return;
    /* gridDim.y is at most 65535: loop so that any number of rows is covered */
    for (int r = blockIdx.y * BLOCK_Y + threadIdx.y; r < rows; r += gridDim.y * BLOCK_Y)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c]; /* strided write */
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(BLOCK_X, BLOCK_Y);
    const int row_blocks = (rows + BLOCK_Y - 1) / BLOCK_Y;
    const dim3 grid((cols + BLOCK_X - 1) / BLOCK_X, row_blocks < 65535 ? row_blocks : 65535);
    transpose_kernel<<<grid, block, 0, stream>>>(out, in, rows, cols);
    CUDA_CHECK_LAUNCH();
}
