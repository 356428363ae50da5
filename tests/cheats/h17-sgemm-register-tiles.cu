/* Honest: lab 09 in another style: templates on the block tile (BM x BN x BK) and the thread's
 * register tile (TM x TN), A staged transposed in shared memory, guards on every edge so that
 * no size needs to be a multiple of anything, alpha and beta applied in the epilogue. Correct;
 * simpler than the reference, so not necessarily fast enough to pass.
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK */
#include "sgemm.h"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemm_tiles(int M, int N, int K, float alpha, const float *__restrict__ A,
           const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BK][BM]; /* A's tile, transposed: a column of A is a row here */
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, k = e % BK;
            As[k][r] = row0 + r < M && k0 + k < K ? A[(size_t)(row0 + r) * K + k0 + k] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            const int k = e / BN, c = e % BN;
            Bs[k][c] = k0 + k < K && col0 + c < N ? B[(size_t)(k0 + k) * N + col0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
            if (r < M && c < N) {
                float *p = &C[(size_t)r * N + c];
                *p = alpha * acc[i][j] + beta * *p;
            }
        }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_tiles<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, stream>>>(M, N, K, alpha, A, B,
                                                                            beta, C);
}
