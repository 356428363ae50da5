/* Honest but wrong: lab 01 with the row test written `r <= rows`, the commonest overrun there
 * is. The threads of the row after the last read and write one row past every buffer's end.
 * Wherever it is graded, the report names the student's own line (the statement that reads and
 * writes past the end), with its kernel, block and thread, and advises the index test; on a GPU
 * the write is caught past the output's end and the check is run once more on the CPU emulator
 * to find that line. No check blames the student for cheating.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\S*01-coalescing/coalescing\.cu:26
 * expect: output-has=kernel scale_rows_kernel, block \(\d+,\d+,0\), thread \(\d+,\d+,0\)
 * expect: output-has=< n, not <= n
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|made at grader/|Shadow byte */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r <= rows && c < cols) { /* the bug: one row too many */
        const size_t i = (size_t)r * cols + c;
        /* the statement that reads and writes past the end: */
        out[i] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + 1 + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
