/* Honest but wrong, on a GPU: a lab 01 file whose kernel also keeps a per-row total in a
 * scratch array it never allocated (a null pointer), so its first store faults: the GPU ends
 * the call with cudaErrorIllegalAddress and names no line. The check is run once more on the
 * CPU emulator, in the sandbox, and the terminal shows the fault at the student's own line
 * (01-coalescing/coalescing.cu:30, the kernel, a block and a thread), the grader's
 * frames left out, and names the log that holds the whole report.
 * lab: coalescing
 * where: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=illegal memory access
 * expect: output-has=the CPU emulator ran this check once more
 * expect: output-has=\| at 01-coalescing/coalescing\.cu:30 \(in scale_rows_kernel
 * expect: output-has=block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-has=whole report: \S*coalescing\.\d+\.emu\.log
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
