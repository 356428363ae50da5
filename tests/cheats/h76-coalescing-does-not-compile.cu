/* Honest but unfinished: a lab 01 file with a name declared nowhere on its line 20. The terminal shows
 * the compiler's error at the student's file and line (01-coalescing/coalescing.cu:20), and
 * not make's own line about the grader's build tree (`make[1]: *** [Makefile:N: build/...]`).
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=01-coalescing/coalescing\.cu[:(]20
 * expect: output-has=\| \S*01-coalescing/coalescing\.cu[:(]20\S* error
 * expect: output-lacks=\[Makefile:\d+: [^]]*build */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        /* the bug: a name from an earlier draft, declared nowhere */
        out[i] = in[i] * scale[r] + bias[r] + offset_from_last_draft;
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
