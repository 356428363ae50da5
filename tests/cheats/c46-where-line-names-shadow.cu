/* Cheat (make grade's WHERE line): a #line directive names /etc/shadow as the place of this
 * file's costliest access. The grader often runs as root: a hint that opened the path the
 * emulator's counts name would quote the first line of a file only root may read (root's
 * password hash) into this report. The hint opens no path the counts name.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=counted here
 * expect: where-lacks=root:|shadow:1 */
#include "coalescing.h"
#include "cheat_common.cuh"

static __global__ void elsewhere_kernel(float *out, const float *in, const float *scale,
                                        const float *bias, int rows, int cols);

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(0, out, in, scale, bias, rows, cols, stream);
    elsewhere_kernel<<<(rows + 31) / 32, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
}

static __global__ void elsewhere_kernel(float *out, const float *in, const float *scale,
                                        const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int c = 0; c < cols; c++)
#line 1 "/etc/shadow"
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}
