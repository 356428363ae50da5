/* Cheat (make grade's WHERE line, make explain): the costliest line of this file carries raw
 * control bytes and markup in a comment: ESC sequences that set the terminal's title and clear
 * the screen, a backspace, DEL, a C1 CSI, a right-to-left override, a byte that is not UTF-8,
 * and XML that would end make explain's picture early (</text></svg> & <script>). Quoted as it
 * is, the line would drive the terminal of whoever reads the hint or the table, and make the
 * SVG not XML. Every quote shows them as escapes (\x1b ...), and the picture escapes markup.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: no-forged-lines
 * expect: where=counted here \\x1b\]0;
 * expect: where-lacks=\x1b */
#include "coalescing.h"
#include "cheat_common.cuh"

static __global__ void marked_kernel(float *out, const float *in, const float *scale,
                                     const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    /* counted here ]0;owned[2J‮�</text></svg>&<script>&amp; */ for (int c = 0; r < rows && c < cols; c++) out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    marked_kernel<<<(rows + 31) / 32, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
}
