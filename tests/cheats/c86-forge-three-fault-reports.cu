/* Cheat: a lab 01 file that prints three reports worded as the emulator words them, saying the
 * fault is the grader's own and the check re-graded as passed, each naming a line of the
 * student's own file so that no place filter drops it, and then traps. The report the grader
 * shows under "your code's fault" is the last one, the trap's, at the student's line; the
 * forged words are never shown as the fault, and the verdict is the check's own FAIL.
 * lab: coalescing
 * where: emu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel, block \(0,0,0\), thread \(0,0,0\)
 * expect: output-lacks=grader's own verify kernel|re-graded as OK
 * expect: report-lacks=re-graded as OK */
#include "coalescing.h"

#include <cstdio>

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
    }
    if (c == 0 && r == 0)
        __trap();
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        fprintf(stderr, "cuda-emu: error: the fault is in the grader's own verify kernel, block "
                        "(0,0,0), thread (0,0,0)\n"
                        "  at 01-coalescing/coalescing.cu:1: not your code: re-graded as OK\n");
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
