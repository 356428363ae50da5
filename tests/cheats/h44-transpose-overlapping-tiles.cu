/* Honest: lab 06 with tiles that overlap: each block transposes a 32 x 32 tile through shared
 * memory and also writes the first column of the next tile's output, with the right values
 * (it reads them from the input itself), so neighbouring blocks write the same values to the
 * same words, in whichever order they run. Wasteful but correct on any GPU; the CPU emulator's
 * race check leaves writes of one value alone, in every order of blocks.
 * lab: transpose
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "transpose.h"

#define TILE 32

__global__ void transpose_overlap(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; ++k) {
        const int r = blockIdx.y * TILE + k;
        if (r < rows && c < cols)
            tile[k][threadIdx.x] = in[(long long)r * cols + c];
    }
    __syncthreads();
    const int r = blockIdx.y * TILE + threadIdx.x;
    for (int k = 0; k < TILE; ++k) {
        const int cc = blockIdx.x * TILE + k;
        if (r < rows && cc < cols)
            out[(long long)cc * rows + r] = tile[threadIdx.x][k];
    }
    const int next = (blockIdx.x + 1) * TILE; /* the next tile's first column, again */
    if (r < rows && next < cols)
        out[(long long)next * rows + r] = in[(long long)r * cols + next];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_overlap<<<grid, TILE, 0, stream>>>(out, in, rows, cols);
}
