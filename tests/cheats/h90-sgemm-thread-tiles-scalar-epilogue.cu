/* Honest: lab 09 near the reference by the classic route: a 128 x 128 tile of C per block of
 * 256 threads, BK = 8, an 8 x 8 block of C per thread kept in registers, the A and B slices
 * loaded as float4 where the shapes allow it (plain floats otherwise), and an epilogue that
 * writes each thread's 8 x 8 block one float at a time. That epilogue's stores touch a sector
 * per lane, which the CPU emulator counts, but they are one store per K FMAs of the thread: no
 * cost worth a hint. The WHERE line must not blame the epilogue's store (or its read of C).
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK
 * expect: where-lacks=sgemm\.cu:[0-9]|could not count */
#include "sgemm.h"

#define TILE_M 128
#define TILE_N 128
#define TILE_K 8
#define PER_M 8
#define PER_N 8
#define NTHREADS ((TILE_M / PER_M) * (TILE_N / PER_N))

template <bool VEC>
__global__ void __launch_bounds__(NTHREADS)
gemm_thread_tiles(int M, int N, int K, float alpha, const float *__restrict__ A,
                  const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[TILE_K][TILE_M]; /* A's slice, k-major */
    __shared__ float Bs[TILE_K][TILE_N];
    const int tid = threadIdx.x;
    const int tx = tid % (TILE_N / PER_N), ty = tid / (TILE_N / PER_N);
    const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;
    float acc[PER_M][PER_N] = {};
    for (int k0 = 0; k0 < K; k0 += TILE_K) {
        if (VEC) { /* one float4 of A (4 k of one row) and one of B (4 columns) per thread */
            const int ar = tid / 2, ak = (tid % 2) * 4;
            float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
            if (row0 + ar < M && k0 + ak < K)
                a = *reinterpret_cast<const float4 *>(&A[(size_t)(row0 + ar) * K + k0 + ak]);
            As[ak + 0][ar] = a.x, As[ak + 1][ar] = a.y, As[ak + 2][ar] = a.z, As[ak + 3][ar] = a.w;
            const int bk = tid / 32, bc = (tid % 32) * 4;
            float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
            if (k0 + bk < K && col0 + bc < N)
                b = *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + bk) * N + col0 + bc]);
            *reinterpret_cast<float4 *>(&Bs[bk][bc]) = b;
        } else {
            for (int e = tid; e < TILE_M * TILE_K; e += NTHREADS) {
                const int r = e / TILE_K, k = e % TILE_K;
                As[k][r] = row0 + r < M && k0 + k < K ? A[(size_t)(row0 + r) * K + k0 + k] : 0.f;
            }
            for (int e = tid; e < TILE_K * TILE_N; e += NTHREADS) {
                const int k = e / TILE_N, c = e % TILE_N;
                Bs[k][c] = k0 + k < K && col0 + c < N ? B[(size_t)(k0 + k) * N + col0 + c] : 0.f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_K; k++) {
            float a[PER_M], b[PER_N];
#pragma unroll
            for (int i = 0; i < PER_M; i++)
                a[i] = As[k][ty * PER_M + i];
#pragma unroll
            for (int j = 0; j < PER_N; j++)
                b[j] = Bs[k][tx * PER_N + j];
#pragma unroll
            for (int i = 0; i < PER_M; i++)
#pragma unroll
                for (int j = 0; j < PER_N; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < PER_M; i++)
#pragma unroll
        for (int j = 0; j < PER_N; j++) {
            const int r = row0 + ty * PER_M + i, c = col0 + tx * PER_N + j;
            if (r < M && c < N)
                C[(size_t)r * N + c] = alpha * acc[i][j] + beta * C[(size_t)r * N + c];
        }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    const dim3 grid((N + TILE_N - 1) / TILE_N, (M + TILE_M - 1) / TILE_M);
    /* float4 loads need rows that start on 16 bytes: K and N multiples of 4, aligned bases */
    const bool vec = K % 4 == 0 && N % 4 == 0 && ((size_t)A | (size_t)B) % 16 == 0;
    if (vec)
        gemm_thread_tiles<true><<<grid, NTHREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    else
        gemm_thread_tiles<false><<<grid, NTHREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
