/* Lab 09, rung 2: shared-memory tiles, 32 x 32.
 *
 * Changed from rung 1: a 32 x 32 block stages 32 x 32 tiles of A and B in shared memory, one
 * element per thread, and each thread multiplies its row of the A tile by its column of the
 * B tile there. Why: every global element is now loaded once per tile instead of once per
 * output, 32x fewer global loads. New limit: 2 shared-memory loads per FMA; the shared-memory
 * pipe, not the FMA pipe, sets the pace. */
#include "sgemm.h"
#include "check.h"

namespace {

#define LADDER_T 32
__global__ void ladder_smem(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[LADDER_T][LADDER_T], Bs[LADDER_T][LADDER_T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * LADDER_T + ty, col = blockIdx.x * LADDER_T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += LADDER_T) {
        As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.f;
        __syncthreads();
        for (int k = 0; k < LADDER_T; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}
} /* namespace */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    const dim3 block(LADDER_T, LADDER_T);
    const dim3 grid((N + LADDER_T - 1) / LADDER_T, (M + LADDER_T - 1) / LADDER_T);
    ladder_smem<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
