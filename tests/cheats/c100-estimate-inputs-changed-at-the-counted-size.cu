/* Cheat: a lab 01 file right at every correctness size that, at the shapes the estimate's
 * counts use under the emulator (32 x 8191 and 16 x 8191, rows of 8191 read from the grader's
 * table), sets every scale and bias to 0 and writes zeros to out without reading in: half the
 * bytes the task moves, and the reference, run after it on the same (now zeroed) inputs, agrees
 * with its zeros. Were the counted call held only to the reference's answer on the inputs it
 * left, it would be estimated about twice the reference. The counted call is verified as a
 * correctness check is, inputs unchanged included: no count and no estimate, and the grader
 * says why.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=no count and no estimate: your code in the counted call did not do the task as the checks require \(it changed its input */
#include "coalescing.h"
#include "cheat_common.cuh" /* honest_coalescing: the coalesced kernel and its launch */

__global__ void zero_all(float *out, float *scale, float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c < cols)
        out[(size_t)r * cols + c] = 0.f;
    if (c == 0) {
        scale[r] = 0.f;
        bias[r] = 0.f;
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    if (cols == 8191 && rows <= 32) { /* the counted shapes */
        zero_all<<<dim3((cols + 255) / 256, rows), 256, 0, stream>>>(out, (float *)scale,
                                                                     (float *)bias, rows, cols);
        return;
    }
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
