/* Honest but wrong: lab 01 reading the next row's bias (`bias[r + 1]`), an off-by-one that
 * gives wrong values everywhere and reads one float past the bias array in the last row. A GPU
 * runs through the read without a word; the check's wrong values send it once more to the CPU
 * emulator, which stops at the read and names its line, kernel, block and thread. Under the
 * emulator the check itself stops there. No check blames the student for cheating.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\S*01-coalescing/coalescing\.cu:24
 * expect: output-has=READ of size 4
 * expect: output-has=kernel scale_rows_kernel, block \(\d+,\d+,0\), thread \(\d+,\d+,0\)
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|made at grader/|Shadow byte */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r + 1]; /* the bug: the next row's bias */
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
