/* Honest but wrong, on a GPU: a lab 01 file whose kernel asserts that no thread works on the
 * matrix's last row (its author thought another launch did it). On a GPU the assert ends the
 * call with cudaErrorAssert and the CUDA runtime prints the failed assertion with its file, line,
 * block and thread into the check's log; the terminal shows it, and the CPU emulator's run of
 * the check says the same place: 01-coalescing/coalescing.cu:24.
 * lab: coalescing
 * where: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=device-side assert
 * expect: output-has=01-coalescing/coalescing\.cu:24: .*Assertion
 * expect: output-has=cuda-emu: error: device-side assertion failed in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h */
#include "coalescing.h"

#include <assert.h>

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        assert(r < rows - 1); /* the bug, an assumption that does not hold */
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
