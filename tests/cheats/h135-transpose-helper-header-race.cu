/* Honest but wrong: lab 06 whose kernel lives in the student's own header, tile.cuh beside
 * transpose.cu, with the tile's __syncthreads() forgotten. The fault is the student's code like
 * any in the lab file: shown at tile.cuh's line (by the path the student has it, in their lab
 * folder), with the kernel, block and thread, advised a __syncthreads(), and folded into one
 * report for the lab, not repeated for every check.
 * lab: transpose
 * where: emu gpu
 * helper: tile.cuh helpers/h135-tile.cuh
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=data race on shared memory in kernel transpose_tiled, block \(\d+,\d+,0\), thread \(\d+,\d+,0\)
 * expect: output-has=\| thread \S+ \w+ __shared__ tile, element \d+ .* at \S*tree/06-transpose/tile\.cuh:(15|22)\b
 * expect: output-has=put a __syncthreads\(\) between
 * expect: output-has=one fault \(at \S*tree/06-transpose/tile\.cuh:(15|22)\b
 * expect: lab-lines-under=60
 * expect: log-lacks=put a __syncwarp\(\)
 * expect: output-has=Next: lab 06 \(transpose\) stopped at a fault of your code \(data race on shared memory\) at \S*tree/06-transpose/tile\.cuh:(15|22)\b
 * expect: output-lacks=no frame of the report is in your file|transpose\.cu:2\d\b|worker_loop_untrusted|exec\.cpp|launch\.h */
#include "transpose.h"
#include "tile.cuh"

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(TILE, ROWS);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
