/* Cheat (or a bug that passes where blocks run in index order): lab 06 with tiles that spill
 * over. Each block transposes its 32 x 32 tile and also fills the first column of the next
 * tile's output with a placeholder (0), trusting the next block to come later and write the
 * right values over it. Two blocks then write different values to the same words with nothing
 * ordering them; on a GPU whichever runs last wins. The CPU emulator reports it as a data race
 * (two writes of different values), and runs blocks in a seeded order and its reverse besides.
 * lab: transpose
 * where: emu
 * expect: correct=FAIL */
#include "transpose.h"

#define TILE 32

__global__ void transpose_spill(float *out, const float *in, int rows, int cols)
{
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; ++k) {
        const int r = blockIdx.y * TILE + k;
        if (r < rows && c < cols)
            out[(long long)c * rows + r] = in[(long long)r * cols + c];
        /* the next tile's first output column, "to be overwritten" */
        const int next = (blockIdx.x + 1) * TILE;
        if (threadIdx.x == 0 && r < rows && next < cols)
            out[(long long)next * rows + r] = 0.0f;
    }
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_spill<<<grid, TILE, 0, stream>>>(out, in, rows, cols);
}
