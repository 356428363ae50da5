/* Lab 09 - SGEMM: YOUR FILE.
 *
 * Task: C = alpha * A * B + beta * C in fp32, all matrices row-major, A is M x K, B is K x N,
 * C is M x N, for any M, N, K (contract: grader/labs/09-sgemm/sgemm.h). Read
 * labs/09-sgemm/README.md first: it walks the ladder from this kernel to ~cuBLAS speed.
 *
 * What is yours: everything in this file. Keep the function `sgemm` with its signature; add
 * kernels and helpers as you like. What is not: the contract header, the grader, and any
 * library or instruction that does the work for you: cuBLAS, CUTLASS, tensor cores (wmma,
 * mma) and TF32 are rejected at build time. Plain fp32 FMAs only.
 * Grade it with `make grade LAB=sgemm`; `make bench LAB=sgemm` shows where it stands.
 *
 * This version is correct but slow: one thread per element of C, each reading a whole row of
 * A and a whole column of B from global memory, with threadIdx.x walking the ROWS of C. */
#include "sgemm.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B,
                            float beta, float *C)
{
    /* TODO(student) step 1: the 32 threads of a warp differ in threadIdx.x. Here that picks
     * the row, so a warp reads 32 elements of A that are K floats apart (32 sectors for 32
     * floats) and writes C 32 rows apart. Let threadIdx.x pick the column instead: B and C
     * accesses become one 128-byte line per warp and A becomes a broadcast. */
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        /* TODO(student) steps 2-5: each output reads 2K floats and does K FMAs: 1 FMA per
         * 8 bytes, far below what the FMA units need. Stage tiles of A and B in shared memory
         * (each element read once per tile), then give each thread an 8x8 block of C in
         * registers so each value read from shared memory feeds 8 FMAs; load with float4. */
        float acc = 0.f;
        for (int k = 0; k < K; k++)
            acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
    }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    /* TODO(student): the grid follows the kernel's mapping: swap it when threadIdx.x walks
     * columns. gridDim.y is at most 65535. Edges: M, N, K need not be multiples of anything. */
    const dim3 block(32, 8);
    const dim3 grid((M + block.x - 1) / block.x, (N + block.y - 1) / block.y);
    sgemm_naive<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
