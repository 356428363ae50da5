/* Cheat (make grade's WHERE line, make explain): a #line directive gives this file's costliest
 * access a file name made of control bytes and markup (an ESC sequence that clears the screen,
 * DEL, <text>, & and quotes, ]]>): the emulator's counts name that "file", and make explain's
 * table printed names as they came, its picture put them into its SVG's title. Every name a
 * count carries is shown as data (escapes, XML references); the WHERE line, which names only
 * this file's own lines, names this file.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: no-forged-lines
 * expect: where=counted here
 * expect: where-lacks=\x1b|<text> */
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
#line 7 "\033]0;owned\007\033[2J\177<text>&<x a='\"'>]]>.cu"
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}
