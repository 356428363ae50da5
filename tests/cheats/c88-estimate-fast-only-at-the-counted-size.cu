/* Cheat: a lab 06 file that runs the tiled transpose only at the shape the estimate's count
 * uses under the emulator (256 x 256, read from the grader's table), and the skeleton's strided
 * one at every other size: right at every size, but a count at that one shape would estimate
 * the tiled kernel while every speed check on a GPU times the strided one. The estimate counts
 * a second size too (near 128 x 128: lab.h's count_scale, make grade's draw), where the DRAM
 * sectors per element, against the reference's, are four and a half times those at 256 x 256:
 * no estimate, and the line says which figure differs and by how much.
 * lab: transpose
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your code behaves differently at the two sizes counted, each against the reference at that size: your DRAM sectors are [0-9.]+x the reference's at 256 x 256 but [0-9.]+x at [0-9]+ x [0-9]+ */
#include "transpose.h"

#define TILE 32
#define ROWS 8

__global__ void tiled(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols)
            tile[threadIdx.y + k][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    const int oc = blockIdx.y * TILE + threadIdx.x; /* an output column is an input row */
    for (int k = 0; k < TILE; k += ROWS) {
        const int orow = blockIdx.x * TILE + threadIdx.y + k;
        if (orow < cols && oc < rows)
            out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + k];
    }
}

__global__ void strided(float *out, const float *in, int rows, int cols)
{
    const int c = blockIdx.x * TILE + threadIdx.x;
    if (c >= cols)
        return;
    for (int r = blockIdx.y * ROWS + threadIdx.y; r < rows; r += gridDim.y * ROWS)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(TILE, ROWS);
    if (rows == 256 && cols == 256) { /* the size the emulator's speed problem is counted at */
        tiled<<<dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), block, 0, stream>>>(
            out, in, rows, cols);
        return;
    }
    const int row_blocks = (rows + ROWS - 1) / ROWS;
    strided<<<dim3((cols + TILE - 1) / TILE, row_blocks < 65535 ? row_blocks : 65535), block, 0,
              stream>>>(out, in, rows, cols);
}
