/* Honest but wrong: lab 06's classic tiled transpose (a 32 x 32 tile, a 32 x 8 block, four
 * rows a thread), the __syncthreads() between filling the tile and reading its columns
 * forgotten. The first race the emulator meets is between two lanes of warp 0 (lane 0 reads
 * tile[0][8] before lane 8 writes it), but every other warp reads and writes the tile too: the
 * advice must be a __syncthreads(), never a __syncwarp() first.
 * lab: transpose
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=data race on shared memory in kernel transpose_rows8
 * expect: output-has=put a __syncthreads\(\) between
 * expect: output-has=\S*06-transpose/transpose\.cu:(28|35)\b
 * expect: log-lacks=put a __syncwarp\(\)
 * expect: output-lacks=worker_loop_untrusted|exec\.cpp|launch\.h */
#include "transpose.h"

#define TILE 32
#define ROWS 8

__global__ void transpose_rows8(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
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
    transpose_rows8<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
