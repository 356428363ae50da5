/* Lab 09, rung 4: 2D register blocking. 128 x 128 tiles, BK = 8, an 8 x 8 block of C per thread.
 *
 * Changed from rung 3: each of 256 threads owns an 8 x 8 block of outputs. Why: per k, 8 A and
 * 8 B values from shared memory feed 64 FMAs (1/4 shared load per FMA), and each global element
 * is reused 128 times. Measured: no faster than rung 3 yet, because the single-float loads and
 * their bank conflicts, and 162 registers per thread (one block of 8 warps per SM), eat the
 * gain. Rung 5 fixes the loads. */
#include "sgemm.h"
#include "check.h"
#include "register_tile_2d.cuh" /* the kernel, ladder_2d: rung 5 falls back to it */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    const dim3 grid((N + L4_BN - 1) / L4_BN, (M + L4_BM - 1) / L4_BM);
    ladder_2d<<<grid, L4_THREADS, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    CUDA_CHECK_LAUNCH();
}
