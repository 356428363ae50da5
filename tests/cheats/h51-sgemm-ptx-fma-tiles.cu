/* Honest: lab 09 with inline PTX in its inner loop: 16 x 16 tiles of A and B through shared
 * memory, the tiles loaded with ld.global.nc.f32, each product accumulated with fma.rn.f32;
 * the epilogue C = alpha * acc + beta * C in plain C (beta == 0 never reads C).
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "sgemm.h"

#define T 16

__device__ __forceinline__ float load_nc(const float *p)
{
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void tiled(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                      float *C)
{
    __shared__ float As[T][T], Bs[T][T + 1];
    const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        const int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ak < K ? load_nc(A + (long long)row * K + ak) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = bk < K && col < N ? load_nc(B + (long long)bk * N + col) : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++)
            asm("fma.rn.f32 %0, %1, %2, %0;" : "+f"(acc) : "f"(As[threadIdx.y][k]), "f"(Bs[k][threadIdx.x]));
        __syncthreads();
    }
    if (row < M && col < N) {
        float *c = C + (long long)row * N + col;
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    tiled<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
