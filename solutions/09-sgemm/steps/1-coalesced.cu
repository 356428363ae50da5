/* Lab 09, rung 1: global coalescing. threadIdx.x walks the COLUMN of C.
 *
 * Changed from the skeleton: the thread-to-output mapping is transposed. Why: a warp now reads
 * one element of A (one address for all 32 lanes: a broadcast) and 32 consecutive elements of B
 * (one 128-byte line), and writes 32 consecutive elements of C; the skeleton's warp read 32
 * rows of A, K floats apart, and wrote 32 rows of C: 32 sectors per request (lab 01). Still,
 * every output reads 2K floats through L1/L2: the kernel is bound by the load/store path. */
#include "sgemm.h"
#include "check.h"

namespace {

__global__ void ladder_coalesced(int M, int N, int K, float alpha, const float *__restrict__ A,
                                 const float *__restrict__ B, float beta, float *__restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++)
            acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
    }
}
} /* namespace */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    const dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    ladder_coalesced<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
