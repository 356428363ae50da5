/* Honest: lab 06 in another style: a 32 x 32 tile in dynamic shared memory (extern
 * __shared__) with an XOR swizzle instead of padding (element (r, c) of the tile at
 * r * 32 + (c ^ r): a row and a column both touch 32 different banks), a 1-D grid of tiles,
 * and the debugging output a student forgets to remove (a printf in the kernel for tiny
 * matrices, one on the host).
 * lab: transpose
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "transpose.h"
#include <stdio.h>

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void transpose_swizzled(float *out, const float *in, int rows, int cols, int tiles_c)
{
    extern __shared__ float tile[];
    const int tr = blockIdx.x / tiles_c, tc = blockIdx.x % tiles_c;
    const int r0 = tr * TILE, c0 = tc * TILE;
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
    if (blockIdx.x == 0 && threadIdx.x == 0 && rows * cols < 64)
        printf("debug: transposing %d x %d\n", rows, cols);
    for (int k = 0; k < TILE; k += ROWS_PER_PASS) {
        const int r = y + k;
        if (r0 + r < rows && c0 + x < cols)
            tile[r * TILE + (x ^ r)] = in[(size_t)(r0 + r) * cols + c0 + x];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS_PER_PASS) {
        const int c = y + k; /* a column of the tile is a row of out */
        if (c0 + c < cols && r0 + x < rows)
            out[(size_t)(c0 + c) * rows + r0 + x] = tile[x * TILE + (c ^ x)];
    }
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    static int calls;
    if (calls++ == 0)
        printf("transpose: first call, %d x %d\n", rows, cols);
    const int tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    transpose_swizzled<<<tiles_r * tiles_c, TILE * ROWS_PER_PASS, TILE * TILE * sizeof(float),
                         stream>>>(out, in, rows, cols, tiles_c);
}
