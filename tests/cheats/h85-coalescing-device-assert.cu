/* Honest but wrong, under the CPU emulator: lab 01's kernel asserts that no thread works on the
 * matrix's last row (g86 on a GPU). assert() in device code is CUDA's device-side assert: the
 * call fails with cudaErrorAssert, and the terminal shows the emulator's report at the student's
 * line (01-coalescing/coalescing.cu:27, the failed condition, the kernel, block and thread),
 * with no frame of the grader or the emulator, and names the log. The grade lost points, and
 * grader/run/grade.sh's output holds no line of make's about it (`make: *** ... Error 1`).
 * lab: coalescing
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=device-side assert
 * expect: output-has=your code's fault \(the whole report: \S*coalescing\.\d+\.log\)
 * expect: output-has=\| cuda-emu: error: device-side assertion failed in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect: output-has=\| 01-coalescing/coalescing\.cu:27: .*Assertion `r < rows - 1' failed
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h
 * expect: output-lacks=(?m)^make(\[\d+\])?: \*\*\* */
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
