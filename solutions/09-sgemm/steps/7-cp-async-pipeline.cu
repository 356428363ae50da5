/* Lab 09, rung 7 (a detour that measured slower): the reference's kernel with a 3-stage
 * cp.async pipeline (PIPE_ASYNC) instead of double buffering through registers.
 *
 * Changed from the reference: slices go from global to shared memory with cp.async (sm_80 and
 * later: no registers on the way), 2 slices in flight while a third is multiplied. Why it
 * looks better on paper: no registers held for the next slice, deeper prefetch. Why it
 * measured about 25% slower on an H200: A must be transposed on its way into shared memory,
 * which cp.async can only do 4 bytes at a time, and those small copies go through L1 and
 * crowd the same pipe as the LDS.128 fragment loads. A lesson in measuring before believing.
 * On GPUs without cp.async (and in the CPU emulator) the same order runs with plain loads.
 * The kernel is the reference's own (sgemm_tiled.cuh); only the pipeline chosen below differs. */
#include "sgemm_tiled.cuh" /* the reference's kernel, every pipeline */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    sgemm_pipelined<PIPE_ASYNC>(M, N, K, alpha, A, B, beta, C, stream);
}
