/* Honest: lab 09 with dynamic shared memory past the 48 KB default: two 32-deep stages of A
 * and B (64 KB) when the device lets a block opt in that far (cudaFuncSetAttribute with
 * cudaFuncAttributeMaxDynamicSharedMemorySize, asked once and kept in a static), one stage
 * (32 KB) where it does not; loads through __ldg, 8 x 8 register tiles, guards on every edge.
 * Correct; not tuned, so not necessarily fast enough to pass.
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK */
#include "sgemm.h"

namespace {
constexpr int kBM = 128, kBN = 128, kBK = 32, kTM = 8, kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN); /* 256 */
constexpr int kStageFloats = kBK * kBM + kBK * kBN;

__device__ __forceinline__ void load_stage(float *as, float *bs, int M, int N, int K,
                                           const float *__restrict__ A,
                                           const float *__restrict__ B, int row0, int col0,
                                           int k0)
{
    for (int e = threadIdx.x; e < kBM * kBK; e += kThreads) {
        const int r = e / kBK, k = e % kBK;
        as[k * kBM + r] =
            row0 + r < M && k0 + k < K ? __ldg(&A[(size_t)(row0 + r) * K + k0 + k]) : 0.0f;
    }
    for (int e = threadIdx.x; e < kBK * kBN; e += kThreads) {
        const int k = e / kBN, c = e % kBN;
        bs[k * kBN + c] =
            k0 + k < K && col0 + c < N ? __ldg(&B[(size_t)(k0 + k) * N + col0 + c]) : 0.0f;
    }
}
} // namespace

__global__ void __launch_bounds__(kThreads)
big_tiles(int M, int N, int K, float alpha, const float *__restrict__ A,
          const float *__restrict__ B, float beta, float *__restrict__ C, int stages)
{
    extern __shared__ float stage_mem[];
    const int tx = threadIdx.x % (kBN / kTN), ty = threadIdx.x / (kBN / kTN);
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    const int tiles = (K + kBK - 1) / kBK;
    float acc[kTM][kTN] = {};

    load_stage(stage_mem, stage_mem + kBK * kBM, M, N, K, A, B, row0, col0, 0);
    __syncthreads();
    for (int t = 0; t < tiles; t++) {
        float *cur = stage_mem + (stages == 2 ? (t & 1) : 0) * kStageFloats;
        if (stages == 2 && t + 1 < tiles) { /* the other stage: last read before the barrier */
            float *next = stage_mem + ((t + 1) & 1) * kStageFloats;
            load_stage(next, next + kBK * kBM, M, N, K, A, B, row0, col0, (t + 1) * kBK);
        }
        const float *as = cur, *bs = cur + kBK * kBM;
#pragma unroll 4
        for (int k = 0; k < kBK; k++) {
            float a[kTM], b[kTN];
#pragma unroll
            for (int i = 0; i < kTM; i++)
                a[i] = as[k * kBM + ty * kTM + i];
#pragma unroll
            for (int j = 0; j < kTN; j++)
                b[j] = bs[k * kBN + tx * kTN + j];
#pragma unroll
            for (int i = 0; i < kTM; i++)
#pragma unroll
                for (int j = 0; j < kTN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
        if (stages == 1 && t + 1 < tiles) {
            load_stage(stage_mem, stage_mem + kBK * kBM, M, N, K, A, B, row0, col0,
                       (t + 1) * kBK);
            __syncthreads();
        }
    }
#pragma unroll
    for (int i = 0; i < kTM; i++)
#pragma unroll
        for (int j = 0; j < kTN; j++) {
            const int r = row0 + ty * kTM + i, c = col0 + tx * kTN + j;
            if (r < M && c < N) {
                float *p = &C[(size_t)r * N + c];
                *p = alpha * acc[i][j] + beta * *p;
            }
        }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    static int stages = 0; /* decided once: the device does not change between calls */
    if (stages == 0) {
        int device = 0, optin = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        stages = optin >= 2 * kStageFloats * (int)sizeof(float) ? 2 : 1;
        cudaFuncSetAttribute(big_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             stages * kStageFloats * (int)sizeof(float));
    }
    const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
    big_tiles<<<grid, kThreads, stages * kStageFloats * sizeof(float), stream>>>(
        M, N, K, alpha, A, B, beta, C, stages);
}
