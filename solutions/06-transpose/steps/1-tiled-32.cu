/* Lab 06, rung 1: a 32 x 32 tile through shared memory, float tile[32][32].
 *
 * Changed from the skeleton: each block reads a 32 x 32 tile of `in` by rows (a warp reads one
 * 128-byte row segment, 4 rows per thread), parks it in shared memory, and after a barrier
 * writes the tile's COLUMNS as rows of `out` (a warp writes one 128-byte row segment). Why:
 * the skeleton's writes were 32 sectors per warp for 4 useful bytes each; now both sides are
 * whole lines. What it costs: reading a column of tile[32][32] is 32 words 32 apart, all in
 * one bank, a 32-way bank conflict (lab 02): shared memory, not DRAM, now sets the pace. */
#include "transpose.h"
#include "check.h"

namespace {

#define T32 32     /* tile edge */
#define T32_ROWS 8 /* a 32 x 8 block: each thread moves 4 elements */
#define PAD 0      /* floats of padding per tile row */

__global__ void __launch_bounds__(T32 * T32_ROWS)
transpose_tile32(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
                 int tiles_c)
{
    __shared__ float tile[T32][T32 + PAD];
    const int tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
    const int r0 = tr * T32, c0 = tc * T32;
    const int x = threadIdx.x % T32, y = threadIdx.x / T32;
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* a warp reads one 128-byte row segment of in */
        const int r = r0 + y + k, c = c0 + x;
        if (r < rows && c < cols)
            tile[y + k][x] = __ldcs(in + (size_t)r * cols + c);
    }
    __syncthreads(); /* the whole tile is in shared memory before anyone reads a column */
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* ... and writes one row segment of out */
        const int c = c0 + y + k, r = r0 + x;
        if (c < cols && r < rows)
            __stcs(out + (size_t)c * rows + r, tile[x][y + k]); /* a column of the tile */
    }
}

} /* namespace */

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    /* One block per tile over a 1-D grid (which has no 65535 limit). */
    const int tiles_c = (cols + T32 - 1) / T32;
    const long long tiles = (long long)((rows + T32 - 1) / T32) * tiles_c;
    transpose_tile32<<<(unsigned)tiles, T32 * T32_ROWS, 0, stream>>>(out, in, rows, cols,
                                                                     tiles_c);
    CUDA_CHECK_LAUNCH();
}
