/* Cheat: a lab 01 file that runs the coalesced kernel only at the two shapes the estimate's
 * counts use in the grader's table (32 x 8191 and 16 x 8191: the emulated speed problem and
 * half its rows), and the skeleton's strided one at every other size: right at every size, and
 * two counts at those two shapes would agree with each other and estimate the coalesced
 * kernel, where every speed check on a GPU times the strided one. make grade counts its second
 * size near the table's, not at it (drawn from the run's secret seed: 12 to 20 rows), where
 * this file runs the strided kernel: the two sizes differ, and no estimate is given. On a GPU
 * its speed check times the strided kernel, and fails.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect@gpu: speed=FAIL
 * expect@emu: output-lacks=ESTIMATE \(not a grade\): about
 * expect@emu: output-has=ESTIMATE \(not a grade\): none: your code behaves differently at the two sizes counted */
#include "coalescing.h"
#include "cheat_common.cuh" /* honest_coalescing, slow_coalescing */

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    if (cols == 8191 && (rows == 32 || rows == 16)) /* the table's two counted shapes */
        honest_coalescing(out, in, scale, bias, rows, cols, stream);
    else
        slow_coalescing(out, in, scale, bias, rows, cols, stream);
}
