/* Honest but wrong: a lab 01 file whose kernel is right only in the first calls of its process:
 * it keeps a count of its calls in a static variable and, from the third on, adds the bias twice
 * (a leftover of state between calls, as a cache keyed on nothing would be). Its wrong values
 * are run once more on the CPU emulator, in a fresh process, where the call is the first and its
 * values are right: the report says so, and what may differ between the two runs, never "the
 * values themselves are wrong".
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=there your code computed the right values
 * expect: output-has=memory read before anything wrote it
 * expect: output-lacks=the values themselves are wrong */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols, int twice)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r] + (twice ? bias[r] : 0.0f);
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    static int calls;
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols, ++calls > 2);
}
