/* Honest but wrong, under the CPU emulator: lab 01's kernel stops itself with PTX's `trap`
 * (inline assembly) when its own check fails (on the last column). The emulator runs the
 * instruction as __trap(): the call fails with cudaErrorLaunchFailure, as on a GPU, and the
 * terminal names the student's line (01-coalescing/coalescing.cu:22), kernel, block and thread.
 * lab: coalescing
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=kernel launch failure
 * expect: output-has=cuda-emu: error: trap in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-has=\| __trap\(\) \(or PTX trap\) at \S*01-coalescing/coalescing\.cu:22
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        if (c == cols - 1) /* the bug: a padding the rows do not have */
            asm volatile("trap;");
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
