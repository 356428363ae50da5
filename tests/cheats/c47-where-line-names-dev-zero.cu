/* Cheat (make grade's WHERE line, make explain): a #line directive names /dev/zero as the place
 * of this file's costliest access. A hint that read the line from the path the counts name would
 * read forever (a line of /dev/zero never ends): make explain never returned, and make grade's
 * hint ran out its whole time. No device is ever opened: the hint comes back at once and names
 * this file's own line.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=counted here
 * expect: where-lacks=not counted in time */
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
#line 1 "/dev/zero"
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}
