/* Cheat: SGEMM in TF32 precision without tensor-core instructions (inputs rounded to TF32's
 * 10-bit mantissa in software, the trade a TF32 path makes), so no instruction check can see
 * it. The lab's inputs are chosen so that such rounding changes the result.
 * lab: sgemm
 * where: emu gpu
 * expect: correct=FAIL */
#include "sgemm.h"

static __device__ __forceinline__ float to_tf32(float x)
{
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}

static __global__ void gemm_tf32(int M, int N, int K, float alpha, const float *A, const float *B,
                                 float beta, float *C)
{
    const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; k++)
        acc = fmaf(to_tf32(A[(size_t)i * K + k]), to_tf32(B[(size_t)k * N + j]), acc);
    C[(size_t)i * N + j] = alpha * acc + beta * C[(size_t)i * N + j];
}

extern "C" void sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
                      float beta, float *C, cudaStream_t stream)
{
    const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    gemm_tf32<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
