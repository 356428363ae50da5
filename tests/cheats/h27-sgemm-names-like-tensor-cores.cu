/* Honest: lab 09 whose names carry every word of the lab's forbidden libraries and
 * instructions: a kernel wmma_like_tile, a device helper mma_sync_emulated, a struct
 * cutlass_tile, a namespace nvcuda_free and a host helper cublas_like_grid. Plain fp32 FMAs
 * on shared-memory tiles, no tensor-core instruction and no reduced precision. Correct;
 * simpler than the reference, so not necessarily fast enough to pass.
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "sgemm.h"

#define TILE 16

struct cutlass_tile {
    float a[TILE][TILE + 1];
    float b[TILE][TILE + 1];
};

namespace nvcuda_free {
__device__ __forceinline__ float mma_sync_emulated(float a, float b, float c) { return fmaf(a, b, c); }
} // namespace nvcuda_free

__global__ void wmma_like_tile(int M, int N, int K, float alpha, const float *__restrict__ A,
                               const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ cutlass_tile t;
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        t.a[ty][tx] = i < M && k0 + tx < K ? A[(size_t)i * K + k0 + tx] : 0.0f;
        t.b[ty][tx] = k0 + ty < K && j < N ? B[(size_t)(k0 + ty) * N + j] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc = nvcuda_free::mma_sync_emulated(t.a[ty][k], t.b[k][tx], acc);
        __syncthreads();
    }
    if (i < M && j < N)
        C[(size_t)i * N + j] = alpha * acc + beta * C[(size_t)i * N + j];
}

static dim3 cublas_like_grid(int M, int N) { return dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); }

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    wmma_like_tile<<<cublas_like_grid(M, N), dim3(TILE, TILE), 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
