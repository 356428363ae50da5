/* Honest: lab 06 with the checks a careful student writes: assert() on the host (the
 * arguments, the grid that was computed) and in the kernel (the block shape, an index inside
 * the tile), all of which hold, and __launch_bounds__ on the kernel (256 threads, at least
 * four blocks per SM). A 32 x 33 padded tile, 32 x 8 threads.
 * lab: transpose
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-error */
#include "transpose.h"
#include <assert.h>

#define TILE 32
#define ROWS 8

__global__ void __launch_bounds__(TILE * ROWS, 4)
transpose_checked(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    assert(blockDim.x == TILE && blockDim.y == ROWS);
    const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    for (int k = threadIdx.y; k < TILE; k += ROWS) {
        assert(k < TILE);
        if (r0 + k < rows && c0 + threadIdx.x < cols)
            tile[k][threadIdx.x] = in[(size_t)(r0 + k) * cols + c0 + threadIdx.x];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < TILE; k += ROWS)
        if (c0 + k < cols && r0 + threadIdx.x < rows)
            out[(size_t)(c0 + k) * rows + r0 + threadIdx.x] = tile[threadIdx.x][k];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    assert(out != NULL && in != NULL);
    assert(rows >= 1 && cols >= 1);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), block(TILE, ROWS);
    assert((long long)grid.x * TILE >= cols && (long long)grid.y * TILE >= rows);
    transpose_checked<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
