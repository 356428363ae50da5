/* register_tile_2d.cuh - lab 09's rung 4 kernel, 2D register blocking: a 128 x 128 tile of C
 * per block of 256 threads, BK = 8, an 8 x 8 block of C per thread, single-float loads. Rung 4
 * (steps/4-2d-register-tile.cu) launches it; rung 5 (steps/5-vectorized.cu) falls back to it
 * for shapes that cannot take 16-byte loads. In an anonymous namespace: each file that
 * includes it gets its own copy. */
#ifndef SOLUTIONS_SGEMM_REGISTER_TILE_2D_CUH
#define SOLUTIONS_SGEMM_REGISTER_TILE_2D_CUH

#include <cuda_runtime.h>
#include <stddef.h>

namespace {

#define L4_BM 128
#define L4_BN 128
#define L4_BK 8
#define L4_TM 8
#define L4_TN 8
#define L4_THREADS (L4_BM * L4_BN / (L4_TM * L4_TN))
__global__ void __launch_bounds__(L4_THREADS)
ladder_2d(int M, int N, int K, float alpha, const float *__restrict__ A,
          const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[L4_BM][L4_BK], Bs[L4_BK][L4_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * L4_BM, col0 = blockIdx.x * L4_BN;
    const int trow = tid / (L4_BN / L4_TN), tcol = tid % (L4_BN / L4_TN);
    float acc[L4_TM][L4_TN] = {{0.f}};
    float a[L4_TM], b[L4_TN];
    for (int k0 = 0; k0 < K; k0 += L4_BK) {
        for (int i = tid; i < L4_BM * L4_BK; i += L4_THREADS) {
            const int r = i / L4_BK, c = i % L4_BK;
            As[r][c] = row0 + r < M && k0 + c < K ? A[(size_t)(row0 + r) * K + k0 + c] : 0.f;
        }
        for (int i = tid; i < L4_BK * L4_BN; i += L4_THREADS) {
            const int r = i / L4_BN, c = i % L4_BN;
            Bs[r][c] = k0 + r < K && col0 + c < N ? B[(size_t)(k0 + r) * N + col0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < L4_BK; k++) {
#pragma unroll
            for (int i = 0; i < L4_TM; i++)
                a[i] = As[trow * L4_TM + i][k];
#pragma unroll
            for (int j = 0; j < L4_TN; j++)
                b[j] = Bs[k][tcol * L4_TN + j];
#pragma unroll
            for (int i = 0; i < L4_TM; i++)
#pragma unroll
                for (int j = 0; j < L4_TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < L4_TM; i++)
#pragma unroll
        for (int j = 0; j < L4_TN; j++) {
            const int row = row0 + trow * L4_TM + i, col = col0 + tcol * L4_TN + j;
            if (row < M && col < N)
                C[(size_t)row * N + col] = alpha * acc[i][j] + beta * C[(size_t)row * N + col];
        }
}

} /* namespace */

#endif
