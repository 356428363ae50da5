/* Lab 09, rung 3: 1D register blocking. 64 x 64 tiles, BK = 8, 8 outputs per thread.
 *
 * Changed from rung 2: each thread computes 8 outputs of one column of C (512 threads per
 * 64 x 64 tile), and the tiles are 8 deep in k. Why: per k a thread loads one B value into a
 * register and reuses it for 8 FMAs with 8 A values: shared loads per FMA drop from 2 to 9/8.
 * Keeping partial results in registers is what lets arithmetic outpace memory. */
#include "sgemm.h"
#include "check.h"

namespace {

#define L3_BM 64
#define L3_BN 64
#define L3_BK 8
#define L3_TM 8
__global__ void __launch_bounds__(L3_BM * L3_BN / L3_TM)
ladder_1d(int M, int N, int K, float alpha, const float *__restrict__ A,
          const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[L3_BM][L3_BK], Bs[L3_BK][L3_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * L3_BM, col0 = blockIdx.x * L3_BN;
    const int tcol = tid % L3_BN, trow = tid / L3_BN; /* outputs rows trow*8 .. +7 */
    const int a_r = tid / L3_BK, a_c = tid % L3_BK;  /* one A element per thread */
    const int b_r = tid / L3_BN, b_c = tid % L3_BN;  /* one B element per thread */
    float acc[L3_TM] = {0.f};
    for (int k0 = 0; k0 < K; k0 += L3_BK) {
        As[a_r][a_c] = row0 + a_r < M && k0 + a_c < K ? A[(size_t)(row0 + a_r) * K + k0 + a_c] : 0.f;
        Bs[b_r][b_c] = k0 + b_r < K && col0 + b_c < N ? B[(size_t)(k0 + b_r) * N + col0 + b_c] : 0.f;
        __syncthreads();
        for (int k = 0; k < L3_BK; k++) {
            const float b = Bs[k][tcol];
#pragma unroll
            for (int i = 0; i < L3_TM; i++)
                acc[i] += As[trow * L3_TM + i][k] * b;
        }
        __syncthreads();
    }
    const int col = col0 + tcol;
#pragma unroll
    for (int i = 0; i < L3_TM; i++) {
        const int row = row0 + trow * L3_TM + i;
        if (row < M && col < N)
            C[(size_t)row * N + col] = alpha * acc[i] + beta * C[(size_t)row * N + col];
    }
}
} /* namespace */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    const dim3 grid((N + L3_BN - 1) / L3_BN, (M + L3_BM - 1) / L3_BM);
    ladder_1d<<<grid, L3_BM * L3_BN / L3_TM, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
