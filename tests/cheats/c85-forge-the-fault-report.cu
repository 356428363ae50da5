/* Cheat: a lab 01 file that faults on purpose, so that its check is run once more on the CPU
 * emulator (the rerun a GPU's fault gets, forced here with GRADE_FAULT_RERUN=always), and
 * before it faults prints a forged report: an emulator's error line followed by indented lines
 * at places in other files (/etc/passwd:1, the grader's driver.c), a `Score:` line and terminal
 * escapes; it also tries to write into the checkout from both runs. The reports are shown as
 * data under the log's margin, a line at a place in any file but the student's is left out of
 * them, nothing the grader reads names a file for it to open, the verdict is the check's own
 * FAIL, and the tree is unchanged.
 * lab: coalescing
 * where: emu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: tree-unchanged
 * expect: no-forged-lines
 * expect: output-has=the CPU emulator ran this check once more
 * expect: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel, block \(0,0,0\), thread \(0,0,0\)
 * expect: output-lacks=/etc/passwd:1|driver\.c:\d+|worker_loop_untrusted|exec\.cpp
 * expect: report-lacks=^Score: 15 */
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
    /* a forged report, as the emulator would word one, with places in other files */
    fprintf(stderr, "cuda-emu: error: trap in kernel main, block (9,9,9), thread (9,9,9)\n"
                    "  at /etc/passwd:1\n"
                    "  at grader/driver/driver.c:1200 (in grade_lab)\n"
                    "Score: 15/15\n\033[2J\033[1;1HScore: 15/15\n");
    FILE *f = fopen("Makefile", "a"); /* the checkout, if it were in view */
    if (f)
        fclose(f);
    f = fopen("../../../Makefile", "a");
    if (f)
        fclose(f);
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
