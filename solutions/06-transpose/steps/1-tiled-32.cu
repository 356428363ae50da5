/* Lab 06, rung 1: a 32 x 32 tile through shared memory, float tile[32][32].
 *
 * Changed from the skeleton: each block reads a 32 x 32 tile of `in` by rows (a warp reads one
 * 128-byte row segment, 4 rows per thread), parks it in shared memory, and after a barrier
 * writes the tile's COLUMNS as rows of `out` (a warp writes one 128-byte row segment). Why:
 * the skeleton's writes were 32 sectors per warp for 4 useful bytes each; now both sides are
 * whole lines. What it costs: reading a column of tile[32][32] is 32 words 32 apart, all in
 * one bank, a 32-way bank conflict (lab 02): shared memory, not DRAM, now sets the pace. */
#include "transpose_tiles.cuh" /* the kernels, shared with the reference */

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    launch_tile32<0>(out, in, rows, cols, stream); /* no padding */
}
