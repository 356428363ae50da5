/* Honest but wrong, under the CPU emulator: lab 01's kernel prints what it found and stops
 * with __trap() when its own check fails (g87 on a GPU). The call fails with
 * cudaErrorLaunchFailure, as on a GPU; the terminal shows what the kernel printed, then the
 * emulator's report: the trap at the student's line (01-coalescing/coalescing.cu:28), its
 * kernel, block and thread.
 * lab: coalescing
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=kernel launch failure
 * expect: output-has=\| scale_rows_kernel: column \d+ of \d+ is past the padded row
 * expect: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-has=\| __trap\(\) \(or PTX trap\) at 01-coalescing/coalescing\.cu:28
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h
 * expect: output-lacks=(?m)^make(\[\d+\])?: \*\*\* */
#include "coalescing.h"

#include <cstdio>

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        if (c == cols - 1 && r == 0) { /* the bug: a padding the rows do not have */
            printf("scale_rows_kernel: column %d of %d is past the padded row\n", c, cols);
            __trap();
        }
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
