/* Honest but wrong: lab 06 whose kernel lives in the student's own header in a subfolder,
 * kern/op.cuh, with its row test one past (`r <= rows`): the row after the last reads past the
 * input. The fault is shown at kern/op.cuh's line as the student has it, with the kernel, block
 * and thread and the index advice, never "no frame of the report is in your file" nor the
 * launch line in transpose.cu; one report for the lab, not one per check.
 * lab: transpose
 * where: emu gpu
 * helper: kern/op.cuh helpers/h136-op.cuh
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\S*tree/06-transpose/kern/op\.cuh:11\b
 * expect: output-has=kernel transpose_naive, block \(\d+,\d+,0\), thread \(\d+,\d+,0\)
 * expect: output-has=< n, not <= n
 * expect: output-has=one fault \(at \S*tree/06-transpose/kern/op\.cuh:11\b
 * expect: lab-lines-under=60
 * expect: output-has=Next: lab 06 \(transpose\) stopped at a fault of your code \(AddressSanitizer: heap-buffer-overflow READ\) at \S*tree/06-transpose/kern/op\.cuh:11\b
 * expect: output-lacks=is short of its mark
 * expect: output-lacks=no frame of the report is in your file|transpose\.cu:2\d\b|worker_loop_untrusted|shim_untrusted|exec\.cpp|launch\.h|Shadow byte */
#include "transpose.h"
#include "kern/op.cuh"

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + 31) / 32, (rows + 1 + 7) / 8);
    transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
