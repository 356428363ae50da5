/* Honest: lab 01 with a stream-ordered temporary: the scaled input is staged in a buffer from
 * cudaMallocAsync on the given stream, the bias added from it by a second kernel, and the
 * buffer given back with cudaFreeAsync on the same stream. Coalesced, one thread per element.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "coalescing.h"

__global__ void scaled(float *tmp, const float *in, const float *scale, int rows, int cols)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < (long long)rows * cols)
        tmp[i] = in[i] * scale[i / cols];
}

__global__ void biased(float *out, const float *tmp, const float *bias, int rows, int cols)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < (long long)rows * cols)
        out[i] = tmp[i] + bias[i / cols];
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    if (n == 0)
        return;
    float *tmp = nullptr;
    cudaMallocAsync((void **)&tmp, n * sizeof(float), stream);
    const int threads = 256;
    const unsigned blocks = (unsigned)((n + threads - 1) / threads);
    scaled<<<blocks, threads, 0, stream>>>(tmp, in, scale, rows, cols);
    biased<<<blocks, threads, 0, stream>>>(out, tmp, bias, rows, cols);
    cudaFreeAsync(tmp, stream);
}
