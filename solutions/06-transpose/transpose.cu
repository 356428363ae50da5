/* Lab 06 - matrix transpose: REFERENCE SOLUTION.
 *
 * out (cols x rows) = transpose of in (rows x cols), both row-major, any shape (contract:
 * grader/labs/06-transpose/transpose.h).
 *
 * A transpose reads every element once and writes it once, like a copy, so a copy of the same
 * bytes is its ceiling. The difficulty is that a warp can be given consecutive addresses on
 * one side only: a row of `in` is a column of `out`. So each block moves a tile: it reads the
 * tile's rows from `in` (whole lines), parks the tile in shared memory, and writes the tile's
 * columns as rows of `out` (whole lines again). What is left is to keep DRAM busy:
 *
 *   - 16-byte accesses (float4): a warp moves 512 bytes per instruction, a quarter of the
 *     instructions and address arithmetic of 4-byte accesses;
 *   - a 64 x 64 tile (16 KB) per block of 256 threads: each thread has 4 independent 16-byte
 *     loads in flight, and at 32 registers per thread 8 blocks fit per SM, which keeps up to
 *     128 KB of reads in flight per SM, several times what covers DRAM latency at full
 *     bandwidth (Little's law; lab 04);
 *   - a shared-memory layout where neither the 16-byte stores (a tile row, 4 columns per
 *     thread) nor the 4-byte loads (a tile column, 4 rows per thread) conflict: an XOR
 *     swizzle, since a padded row (65 floats) would break the 16-byte alignment the stores
 *     need, and a 68-float row leaves the column reads 4-way conflicted;
 *   - streaming cache hints (__ldcs/__stcs: evict first), since nothing is read twice;
 *   - tiles handed out column by column: the blocks resident at any moment then write whole
 *     rows of `out` between them (64 KB runs) and read 1 KB runs of many rows of `in`.
 *     Measured on the H200 (make bench): 0.92 of the same run's cudaMemcpy in this order,
 *     0.86 with the tiles row by row (ladder step "64x64 float4, row order": long runs on
 *     the read side instead).
 *     Our reading: reads are waited for, and the bytes in flight cover their latency in either
 *     order; writes are posted and drain from L2 to DRAM, where long runs keep DRAM pages
 *     open.
 *
 * 16-byte accesses need rows of `in` and `out` that start on 16-byte boundaries: rows and
 * cols multiples of 4. Other shapes take the classic kernel: 32 x 32 tiles of single floats
 * through a [32][33] tile (lab 02's padding), 4 elements per thread. Both kernels are in
 * transpose_tiles.cuh beside this file (the ladder's rungs launch them too); this file
 * chooses. */
#include "transpose_tiles.cuh" /* the kernels, shared with the ladder's rungs */

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    if (rows % 4 == 0 && cols % 4 == 0)
        launch_tile64<TILES_DOWN_COLUMNS>(out, in, rows, cols, stream);
    else
        launch_tile32<1>(out, in, rows, cols, stream);
}
