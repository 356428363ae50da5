/* Honest: lab 06 with the pipeline primitives of cuda_pipeline.h (cp.async in CUDA C++): each
 * thread of a 32 x 8 block starts four 4-byte __pipeline_memcpy_async copies of its column of
 * a 32 x 32 tile into shared memory, with the zero-fill argument covering the elements past
 * the matrix's edge, commits them with __pipeline_commit, waits with __pipeline_wait_prior(0),
 * and after a __syncthreads() writes the tile out transposed.
 * lab: transpose
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "transpose.h"

#include <cuda_pipeline.h>

#define TILE 32
#define ROWS 8

__global__ void pipelined_tile(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    const int x = threadIdx.x, y = threadIdx.y;
    for (int r = y; r < TILE; r += ROWS) {
        const int gr = r0 + r, gc = c0 + x;
        const bool inside = gr < rows && gc < cols;
        /* outside: nothing is read (src may be any valid address), four zero bytes written */
        __pipeline_memcpy_async(&tile[r][x], inside ? in + (long long)gr * cols + gc : in,
                                sizeof(float), inside ? 0 : sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    /* out is cols x rows: row c of out holds column c of in */
    for (int r = y; r < TILE; r += ROWS) {
        const int gc = c0 + r, gr = r0 + x;
        if (gc < cols && gr < rows)
            out[(long long)gc * rows + gr] = tile[x][r];
    }
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), block(TILE, ROWS);
    pipelined_tile<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
