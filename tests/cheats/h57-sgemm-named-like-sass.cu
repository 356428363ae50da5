/* Honest: lab 09 in plain fp32 FMAs whose kernel, device function and a string spell the
 * machine-code instructions the lab forbids (a kernel sgemm_fp32_noHMMA, a helper
 * HMMA_IMMA_free kept out of line and called, "HMMA mma.sync" in a device string). The
 * machine-code and PTX rules read instructions, never a function header or a callee's name.
 * A 16 x 16 tile through shared memory: correct, not fast.
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "sgemm.h"

#define T 16

__device__ __noinline__ float HMMA_IMMA_free(float a, float b, float c) { return fmaf(a, b, c); }
__device__ const char sgemm_fp32_note[] = "HMMA mma.sync wmma.load IMMA";

__global__ void sgemm_fp32_noHMMA(int M, int N, int K, float alpha, const float *A,
                                  const float *B, float beta, float *C)
{
    __shared__ float a[T][T], b[T][T];
    const int i = blockIdx.y * T + threadIdx.y, j = blockIdx.x * T + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += T) {
        a[threadIdx.y][threadIdx.x] = i < M && k0 + threadIdx.x < K ? A[(size_t)i * K + k0 + threadIdx.x] : 0.f;
        b[threadIdx.y][threadIdx.x] = j < N && k0 + threadIdx.y < K ? B[(size_t)(k0 + threadIdx.y) * N + j] : 0.f;
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc = HMMA_IMMA_free(a[threadIdx.y][k], b[k][threadIdx.x], acc);
        __syncthreads();
    }
    if (i < M && j < N)
        C[(size_t)i * N + j] = alpha * acc + beta * C[(size_t)i * N + j];
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    sgemm_fp32_noHMMA<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T), 0, stream>>>(
        M, N, K, alpha, A, B, beta, C);
}
