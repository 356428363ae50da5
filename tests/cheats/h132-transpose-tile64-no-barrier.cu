/* Honest but wrong: lab 06 through a 64 x 64 tile (a 64 x 4 block, sixteen rows a thread, two
 * warps a tile row), the __syncthreads() between filling the tile and reading its columns
 * forgotten. Lanes of one warp race first (lane 0 reads tile[0][4] before lane 4 writes it),
 * but the other warps share the tile: the advice must be a __syncthreads().
 * lab: transpose
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=data race on shared memory in kernel transpose_tile64
 * expect: output-has=put a __syncthreads\(\) between
 * expect: output-has=\S*06-transpose/transpose\.cu:(27|34)\b
 * expect: log-lacks=put a __syncwarp\(\)
 * expect: output-lacks=worker_loop_untrusted|exec\.cpp|launch\.h */
#include "transpose.h"

#define TILE 64
#define ROWS 4

__global__ void transpose_tile64(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols)
            tile[threadIdx.y + k][threadIdx.x] = in[(size_t)r * cols + c];
    }
    /* (the __syncthreads() belongs here) */
    const int oc = blockIdx.y * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS) {
        const int orow = blockIdx.x * TILE + threadIdx.y + k;
        if (orow < cols && oc < rows)
            out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + k];
    }
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(TILE, ROWS);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tile64<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
