/* Honest but wrong: lab 06 through a padded 32 x 33 tile with a 32 x 32 block (one element a
 * thread), the __syncthreads() between filling the tile and reading its columns forgotten. A
 * thread reads tile[x][y], which thread (y, x) of another warp writes: the advice must be a
 * __syncthreads() (a __syncwarp() orders one warp alone, and following it fails again).
 * lab: transpose
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=data race on shared memory in kernel transpose_tile33
 * expect: output-has=put a __syncthreads\(\) between
 * expect: output-has=\S*06-transpose/transpose\.cu:(24|28)\b
 * expect: log-lacks=put a __syncwarp\(\)
 * expect: output-lacks=worker_loop_untrusted|exec\.cpp|launch\.h */
#include "transpose.h"

#define TILE 32

__global__ void transpose_tile33(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
    /* (the __syncthreads() belongs here) */
    const int oc = blockIdx.y * TILE + threadIdx.x, orow = blockIdx.x * TILE + threadIdx.y;
    if (orow < cols && oc < rows)
        out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(TILE, TILE);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tile33<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
