/* Lab 06, rung 3: 64 x 64 tiles, 16-byte accesses, a swizzled tile; tiles handed out row by row.
 *
 * Changed from rung 2 (for shapes whose sides are multiples of 4; other shapes keep rung 2's
 * kernel). Why each part:
 *   - float4 accesses: a warp moves 512 bytes per instruction, a quarter of the instructions
 *     and address arithmetic of 4-byte accesses;
 *   - a 64 x 64 tile (16 KB) per block of 256 threads: 4 independent 16-byte loads per thread,
 *     up to 128 KB of reads in flight per SM at 8 blocks per SM (Little's law, lab 04);
 *   - an XOR-swizzled tile instead of a padded one: a row of 65 floats would break the
 *     16-byte alignment the float4 stores into the tile need, and 68 floats leave the column
 *     reads 4-way conflicted; XORing the 16-byte group with bits of the row keeps both sides
 *     conflict-free (lab 02, rung 5).
 * The one difference from the reference: consecutive blocks take consecutive tiles along a ROW
 * of tiles. The blocks resident at a time then read whole rows of `in` and write short pieces
 * of many rows of `out`; the reference numbers its tiles down the columns and measured faster
 * (long runs on the write side). */
#include "transpose_tiles.cuh" /* the kernels, shared with the reference */

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    if (rows % 4 == 0 && cols % 4 == 0)
        launch_tile64<TILES_ALONG_ROWS>(out, in, rows, cols, stream);
    else
        launch_tile32<1>(out, in, rows, cols, stream);
}
