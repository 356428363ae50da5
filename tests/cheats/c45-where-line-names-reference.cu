/* Cheat (make grade's WHERE line): a #line directive gives this file's costliest access another
 * lab's reference source as its place, line 40 of the transpose reference, so that the
 * emulator's counts name that path. A hint that opened the path the counts name would quote the
 * reference's line into this report and results.json. The hint quotes only the copy of this file
 * that was compiled: a row of any other file is left out of its choice, and the line it names
 * is this file's own.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=counted here
 * expect: where-lacks=TILE|tile edge|transpose */
#include "coalescing.h"
#include "cheat_common.cuh"

static __global__ void elsewhere_kernel(float *out, const float *in, const float *scale,
                                        const float *bias, int rows, int cols);

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(0, out, in, scale, bias, rows, cols, stream);
    /* the same values again, one thread per row: far the costliest access of the call */
    elsewhere_kernel<<<(rows + 31) / 32, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
}

static __global__ void elsewhere_kernel(float *out, const float *in, const float *scale,
                                        const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int c = 0; c < cols; c++)
#line 40 "solutions/06-transpose/transpose.cu"
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}
