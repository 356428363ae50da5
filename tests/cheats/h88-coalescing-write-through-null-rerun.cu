/* Honest but wrong, under the CPU emulator, with the rerun a GPU's fault gets
 * (GRADE_FAULT_RERUN=always): lab 01's kernel stores through a scratch pointer it never
 * allocated (g85 on a GPU). The first check fails with UBSan's report at the student's line
 * (a store to a null pointer); then it is run once more, alone, by the emulated harness in
 * grading's sandbox (what a GPU's fault gets, to name its line), and its report names the same
 * line, kernel, block and thread, in a log of its own (coalescing.0.emu.log), the grader's
 * frames left out. The later checks store at small addresses that belong to no allocation: the
 * emulator's own report, at the student's line, with the grader's buffer said as the grader's.
 * lab: coalescing
 * where: emu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=your code's fault \(the whole report: \S*coalescing\.\d+\.log\)
 * expect: output-has=the CPU emulator ran this check once more
 * expect: output-has=whole report: \S*coalescing\.0\.emu\.log\):\n\s+\| 01-coalescing/coalescing\.cu:34:\d+: runtime error: store to null pointer[^\n]*\n\s+\| at 01-coalescing/coalescing\.cu:34 \(in scale_rows_kernel
 * expect: output-has=block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-has=\| thread \(\d+,\d+,\d+\) writes 4 bytes at address 0x\w+, which belongs to no allocation; the nearest device allocation, of \d+ bytes \(made by the grader\), starts after it by \d+ bytes, at 01-coalescing/coalescing\.cu:34
 * expect: output-has=the CPU emulator's run of the lab's first fault above says where
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|made at grader/ */
#include "coalescing.h"

static float *row_totals; /* the bug: never given cudaMalloc'd memory */

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, float *totals, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
        if (c == 0)
            totals[r] = out[i]; /* the fault: a store through a null pointer */
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, row_totals, rows, cols);
}
