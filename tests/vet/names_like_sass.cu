/* Honest: lab 09 names of the student's own that spell the machine-code instructions the lab
 * forbids (a kernel sgemm_fp32_noHMMA, a device function HMMA_IMMA_free that it calls and is
 * kept out of line, a string "HMMA mma.sync" and a comment naming them): plain fp32 FMAs, no
 * tensor-core instruction. The rules read opcodes, never a function header or a callee. */
#include "sgemm.h"
__device__ __noinline__ float HMMA_IMMA_free(float a, float b, float c) { return fmaf(a, b, c); }
__global__ void sgemm_fp32_noHMMA(int M, int N, int K, float alpha, const float *A, const float *B,
                                  float beta, float *C)
{
    const int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
    if (i >= M || j >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; k++) /* no HMMA, no mma.sync: fp32 FMAs */
        acc = HMMA_IMMA_free(A[(size_t)i * K + k], B[(size_t)k * N + j], acc);
    C[(size_t)i * N + j] = alpha * acc + beta * C[(size_t)i * N + j];
}
__device__ const char sgemm_note[] = "HMMA mma.sync wmma.load";
void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    sgemm_fp32_noHMMA<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(
        M, N, K, alpha, A, B, beta, C);
}
