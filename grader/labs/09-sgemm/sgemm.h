/* sgemm.h - lab 09's contract: what labs/09-sgemm/sgemm.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_SGEMM_H
#define CONTRACT_SGEMM_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Single-precision general matrix multiply, all matrices row-major:
 *
 *     C[i * N + j] = alpha * sum_k A[i * K + k] * B[k * N + j] + beta * C[i * N + j]
 *
 * for i < M, j < N, k < K. A is M x K (lda = K), B is K x N (ldb = N), C is M x N (ldc = N)
 * and is read (times beta) and written. M, N, K >= 1, any values (not multiples of anything).
 * All pointers are device memory, 256-byte aligned, and the three matrices do not overlap.
 * Plain fp32 arithmetic: no tensor cores, no TF32, no cuBLAS or CUTLASS. Launch your
 * kernel(s) on `stream` and return without synchronizing: the grader times the stream. */
void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
