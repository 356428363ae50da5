/* Honest: lab 01 with two kernels that share a name, overloaded on their pointer types (a float4
 * body for the bulk, a float body for the tail), both under __launch_bounds__. nvcc takes
 * overloaded kernels; so must the emulator.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "coalescing.h"
#include "check.h"

__global__ void __launch_bounds__(256) scale(float4 *out, const float4 *in, const float *s,
                                             const float *b, long long n4, int cols)
{
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += gridDim.x * 256LL) {
        const float4 v = in[i];
        const long long e = 4 * i;
        float4 o;
        o.x = v.x * s[e / cols] + b[e / cols];
        o.y = v.y * s[(e + 1) / cols] + b[(e + 1) / cols];
        o.z = v.z * s[(e + 2) / cols] + b[(e + 2) / cols];
        o.w = v.w * s[(e + 3) / cols] + b[(e + 3) / cols];
        out[i] = o;
    }
}

__global__ void __launch_bounds__(128) scale(float *out, const float *in, const float *s,
                                             const float *b, long long from, long long n, int cols)
{
    for (long long i = from + blockIdx.x * 128LL + threadIdx.x; i < n; i += gridDim.x * 128LL)
        out[i] = in[i] * s[i / cols] + b[i / cols];
}

void coalescing(float *out, const float *in, const float *scale_, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols, n4 = n / 4;
    if (n4 > 0) {
        const long long blocks = (n4 + 255) / 256;
        scale<<<(int)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
            (float4 *)out, (const float4 *)in, scale_, bias, n4, cols);
        CUDA_CHECK_LAUNCH();
    }
    if (n > 4 * n4) {
        scale<<<1, 128, 0, stream>>>(out, in, scale_, bias, 4 * n4, n, cols);
        CUDA_CHECK_LAUNCH();
    }
}
