/* ladder.cuh - lab 09's ladder steps 1 to 5, one kernel each, for `make bench` and the README.
 *
 * Step 0 is the skeleton (labs/09-sgemm/sgemm.cu); steps 6 to 8 are the reference kernel
 * (sgemm.cu beside this file) with its pipeline switched off, through registers, and through
 * cp.async. Every step computes the contract's C = alpha * A * B + beta * C for any M, N, K
 * (the bench checks each one's output before timing it), so the only thing that changes
 * from one step to the next is the idea in its comment. Included by grader/labs/09-sgemm/problem.cu;
 * everything is in an anonymous namespace. */
#ifndef SOLUTIONS_SGEMM_LADDER_CUH
#define SOLUTIONS_SGEMM_LADDER_CUH

#include <cuda_runtime.h>

namespace {

/* Step 1, global coalescing. threadIdx.x walks the COLUMN: a warp reads one element of A
 * (the same address: a broadcast) and 32 consecutive elements of B (one 128-byte line), and
 * writes 32 consecutive elements of C. Each output still reads 2K floats from L1/L2. */
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

/* Step 2, shared-memory tiling. A 32x32 block stages 32x32 tiles of A and B in shared memory
 * and each thread reads its row and column there: every global element is loaded once per
 * tile instead of once per output, 32x fewer global loads. Still 2 shared loads per FMA. */
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

/* Step 3, 1D register blocking. A 64x64 tile, BK = 8, 512 threads; each thread computes 8
 * outputs of one column. Per k it loads one B value into a register and reuses it for 8
 * FMAs with 8 A values: shared loads per FMA drop from 2 to 9/8. */
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

/* Step 4, 2D register blocking. 128x128 tile, BK = 8, 256 threads, an 8x8 block of C per
 * thread: per k, 8 A + 8 B values from shared memory feed 64 FMAs (1/4 load per FMA), and
 * each global element is reused 128 times. Loads are still single floats. */
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

/* Step 5, vectorized loads. Step 4 with 16-byte accesses: A and B tiles are read from global
 * memory as float4 (a quarter of the load instructions), A is stored TRANSPOSED (k-major) so a
 * thread's 8 A values are two adjacent float4 in shared memory, and every fragment is read
 * with LDS.128: per k, 4 shared loads instead of 16. Needs K % 4 == 0 and N % 4 == 0 (row
 * starts 16-byte aligned); otherwise the launcher falls back to step 4. */
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

/* Launch ladder step `step` (1..5) on `stream`. */
static void ladder_launch(int step, int M, int N, int K, float alpha, const float *A,
                          const float *B, float beta, float *C, cudaStream_t stream)
{
    switch (step) {
    case 1: {
        const dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
        ladder_coalesced<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
        break;
    }
    case 2: {
        const dim3 block(LADDER_T, LADDER_T), grid((N + LADDER_T - 1) / LADDER_T, (M + LADDER_T - 1) / LADDER_T);
        ladder_smem<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
        break;
    }
    case 3: {
        const dim3 grid((N + L3_BN - 1) / L3_BN, (M + L3_BM - 1) / L3_BM);
        ladder_1d<<<grid, L3_BM * L3_BN / L3_TM, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
        break;
    }
    default: {
        const dim3 grid((N + L4_BN - 1) / L4_BN, (M + L4_BM - 1) / L4_BM);
        if (step == 5 && K % 4 == 0 && N % 4 == 0)
            ladder_vec<<<grid, L4_THREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
        else
            ladder_2d<<<grid, L4_THREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    }
    }
}

} /* namespace */

#endif
