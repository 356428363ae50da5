/* Lab 09, rung 5: rung 4 with 16-byte loads and A stored transposed.
 *
 * Changed from rung 4: A and B tiles are read from global memory as float4 (a quarter of the
 * load instructions); A is stored TRANSPOSED (k-major) in shared memory so a thread's 8 A
 * values are two adjacent float4; every fragment is read with LDS.128: per k, 4 shared loads
 * instead of 16. Why: the loads, not the FMAs, were the bottleneck; now the FMA pipe is half
 * busy. 16-byte loads need K % 4 == 0 and N % 4 == 0 (row starts 16-byte aligned); other shapes
 * take rung 4's kernel. */
#include "sgemm.h"
#include "check.h"
#include "register_tile_2d.cuh" /* rung 4's kernel, ladder_2d, and its tile sizes L4_* */

namespace {

__global__ void __launch_bounds__(L4_THREADS)
ladder_vec(int M, int N, int K, float alpha, const float *__restrict__ A,
           const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ __align__(16) float As[L4_BK][L4_BM];
    __shared__ __align__(16) float Bs[L4_BK][L4_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * L4_BM, col0 = blockIdx.x * L4_BN;
    const int trow = tid / (L4_BN / L4_TN), tcol = tid % (L4_BN / L4_TN);
    const int a_r = tid / (L4_BK / 4), a_c = tid % (L4_BK / 4) * 4; /* one float4 of A */
    const int b_r = tid / (L4_BN / 4), b_c = tid % (L4_BN / 4) * 4; /* one float4 of B */
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    float acc[L4_TM][L4_TN] = {{0.f}};
    for (int k0 = 0; k0 < K; k0 += L4_BK) {
        const float4 av = row0 + a_r < M && k0 + a_c < K
                              ? *reinterpret_cast<const float4 *>(&A[(size_t)(row0 + a_r) * K + k0 + a_c])
                              : zero;
        As[a_c + 0][a_r] = av.x;
        As[a_c + 1][a_r] = av.y;
        As[a_c + 2][a_r] = av.z;
        As[a_c + 3][a_r] = av.w;
        *reinterpret_cast<float4 *>(&Bs[b_r][b_c]) =
            k0 + b_r < K && col0 + b_c < N
                ? *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + b_r) * N + col0 + b_c])
                : zero;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < L4_BK; k++) {
            float a[L4_TM], b[L4_TN];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[k][trow * L4_TM]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[k][trow * L4_TM + 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[k][tcol * L4_TN]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[k][tcol * L4_TN + 4]);
#pragma unroll
            for (int i = 0; i < L4_TM; i++)
#pragma unroll
                for (int j = 0; j < L4_TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < L4_TM; i++) {
        const int row = row0 + trow * L4_TM + i;
        if (row >= M)
            continue;
#pragma unroll
        for (int j = 0; j < L4_TN; j += 4) {
            const int col = col0 + tcol * L4_TN + j;
            if (col < N) { /* N % 4 == 0: the whole float4 is inside */
                float4 *cp = reinterpret_cast<float4 *>(&C[(size_t)row * N + col]);
                float4 c = *cp;
                c.x = alpha * acc[i][j + 0] + beta * c.x;
                c.y = alpha * acc[i][j + 1] + beta * c.y;
                c.z = alpha * acc[i][j + 2] + beta * c.z;
                c.w = alpha * acc[i][j + 3] + beta * c.w;
                *cp = c;
            }
        }
    }
}

} /* namespace */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    const dim3 grid((N + L4_BN - 1) / L4_BN, (M + L4_BM - 1) / L4_BM);
    if (K % 4 == 0 && N % 4 == 0)
        ladder_vec<<<grid, L4_THREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    else
        ladder_2d<<<grid, L4_THREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
