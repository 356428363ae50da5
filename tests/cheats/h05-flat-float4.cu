/* Honest control for g08-return-before-done: the same fast kernel, with nothing patched. Its
 * ratio to the reference is what g08's must not exceed by much.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "coalescing.h"
#include "cheat_common.cuh"

/* The reference's approach: the matrix as one flat array of float4 (n need not be a multiple
 * of 4 of a row), a grid-stride loop, streaming loads and stores. */
static __global__ void fast_kernel(float *out, const float *in, const float *scale,
                                   const float *bias, unsigned n, unsigned cols)
{
    const unsigned n4 = n / 4, stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = __ldcs((const float4 *)in + i);
        float *x = &v.x;
        for (int k = 0; k < 4; k++) {
            const unsigned r = (4 * i + k) / cols;
            x[k] = fmaf(x[k], scale[r], bias[r]);
        }
        __stcs((float4 *)out + i, v);
    }
    const unsigned tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n)
        out[tail] = fmaf(in[tail], scale[tail / cols], bias[tail / cols]);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    fast_kernel<<<sms * 8, 256, 0, stream>>>(out, in, scale, bias, (unsigned)rows * cols,
                                             (unsigned)cols);
}
