/* Cheat: a lab 01 file that computes the answer on the host: its inputs copied to the host
 * (cudaMemcpy), out[r][c] = in[r][c] * scale[r] + bias[r] there, the answer copied back, and
 * then a kernel that reads out and each element's scale once (loads, no store): right
 * everywhere, on a GPU too, where the copies over the host's link make it many times slower
 * than the reference. Its kernel touches more than half the bytes the task moves, so a count
 * of its kernels alone would put it well above the reference. The estimate holds the call's copies to and from the
 * host apart from its kernels: none, and the line says what was copied.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your counted call copied [0-9]+ bytes to or from the host */
#include "coalescing.h"

#include <stdlib.h>

__global__ void touch(const float *out, const float *scale, size_t n, int cols, float *sink)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && out[i] == 12345.f * scale[i / cols]) /* never: loads, and no store */
        *sink = 1.f;
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const size_t n = (size_t)rows * cols;
    float *h = (float *)malloc((n + 2 * (size_t)rows) * sizeof(float));
    float *hs = h + n, *hb = hs + rows;
    cudaMemcpy(h, in, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hs, scale, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hb, bias, rows * sizeof(float), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; i++)
        h[i] = h[i] * hs[i / cols] + hb[i / cols];
    cudaMemcpy(out, h, n * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    touch<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(out, scale, n, cols,
                                                          (float *)nullptr);
}
