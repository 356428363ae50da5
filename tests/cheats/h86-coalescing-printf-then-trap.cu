/* Honest but wrong: a lab 01 file whose kernel checks its own index, prints what it found and
 * stops the kernel with __trap() when the check fails (it fails on the last column). A GPU ends
 * the call with cudaErrorLaunchFailure ("unspecified launch failure") and names no line (what
 * the kernel printed may be lost with the context); the CPU emulator, on its own or in its run
 * of the GPU's failed check, shows what the kernel printed and where it trapped: the student's
 * line, with its kernel, block and thread, and no frame of the grader.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\| scale_rows_kernel: column \d+ of \d+ is past the padded row
 * expect: output-has=\| __trap\(\) \(or PTX trap\) at \S*01-coalescing/coalescing\.cu:32
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h
 * expect@gpu: message=kernel launch failure|illegal instruction
 * expect@gpu: output-has=cuda-emu: error: trap in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect@emu: message=kernel launch failure
 * expect@emu: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect@emu: output-lacks=(?m)^make(\[\d+\])?: \*\*\* */
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
