/* Honest but wrong: a lab 01 file whose kernel asserts that no thread works on the matrix's
 * last row (its author thought another launch did it). assert() in device code is CUDA's
 * device-side assert: the call fails with cudaErrorAssert. On a GPU the CUDA runtime prints the
 * failed assertion with its file, line, block and thread into the check's log, the terminal
 * shows it, and the CPU emulator's run of the check names the same place. Under the emulator
 * the terminal shows the emulator's report at the student's line (the failed condition, the
 * kernel, block and thread) and names the log. Either way no frame of the grader or the
 * emulator is shown, and grader/driver/grade.sh's output holds no line of make's about it.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: message=device-side assert
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h
 * expect@gpu: output-has=\S*01-coalescing/coalescing\.cu:32: .*Assertion
 * expect@gpu: output-has=cuda-emu: error: device-side assertion failed in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect@emu: output-has=your code's fault \(the whole report: \S*coalescing\.\d+\.report\), as the CPU emulator in your code's process reported it on its own channel
 * expect@emu: output-has=\| cuda-emu: error: device-side assertion failed in kernel scale_rows_kernel, block \(\d+,\d+,\d+\), thread \(\d+,\d+,\d+\)
 * expect@emu: output-has=\| \S*01-coalescing/coalescing\.cu:32: .*Assertion `r < rows - 1' failed
 * expect@emu: output-lacks=(?m)^make(\[\d+\])?: \*\*\* */
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
