/* Honest but wrong: a lab 01 file whose kernel also keeps a per-row total in a scratch array
 * it never allocated (a null pointer), so its first store faults. On a GPU the call ends with
 * cudaErrorIllegalAddress, which names no line. Under the emulator the first check fails with
 * UBSan's report at the student's line (a store to a null pointer), and the later checks with
 * the emulator's own report (small addresses that belong to no allocation, the grader's buffer
 * said as the grader's). Either way the check is run once more, alone, on the CPU emulator in
 * grading's sandbox (what a GPU's fault gets; forced under the emulator by `fault-rerun:
 * always`), and the terminal shows its report: the student's line, kernel, block and thread, in
 * a log of its own (coalescing.N.emu.log), the grader's frames left out.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=the CPU emulator ran this check once more
 * expect: output-has=block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|made at grader/
 * expect@gpu: message=illegal memory access
 * expect@gpu: output-has=\| at \S*01-coalescing/coalescing\.cu:40 \(in scale_rows_kernel
 * expect@gpu: output-has=whole report: \S*coalescing\.\d+\.emu\.log
 * expect@emu: output-has=your code's fault \(the whole report: \S*coalescing\.\d+\.(log|report)\)
 * expect@emu: output-has=whole report: \S*coalescing\.0\.emu\.log\):\n\s+\| \S*01-coalescing/coalescing\.cu:40:\d+: runtime error: store to null pointer[^\n]*\n\s+\| at \S*01-coalescing/coalescing\.cu:40 \(in scale_rows_kernel
 * expect@emu: output-has=\| thread \(\d+,\d+,\d+\) writes 4 bytes at address 0x\w+, which belongs to no allocation; the nearest device allocation, of \d+ bytes \(made by the grader\), starts after it by \d+ bytes, at \S*01-coalescing/coalescing\.cu:40
 * expect@emu: output-has=the same fault as in "[^"]+" above
 * expect: output-has=a null pointer, indexed
 * expect: output-lacks=the lab's first fault above says where|cudaMemcpy\) and pass */
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
