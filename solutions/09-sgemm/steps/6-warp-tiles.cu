/* Lab 09, rung 6: warp tiling, no pipelining.
 *
 * Changed from rung 5: the reference's kernel with its pipeline switched off (PIPE_NONE): copy
 * a BK slice into shared memory, barrier, multiply, barrier. What is new against rung 5:
 *   - warp tiles: the block's 8 warps each own a 64 x 32 sub-tile, and each lane an 8 x 8
 *     register tile made of 4 x 4 pieces spread over the warp tile, so a lane's A and B
 *     fragments are 16-byte runs that the warp reads without bank conflicts (rung 5 still had
 *     5-way conflicts on its fragment loads);
 *   - A's transposed slice padded by 4 floats per k row, so the transposing stores do not
 *     conflict either;
 *   - edges without branches in the main loop: rows and columns past C's edge are clamped on
 *     load and discarded on store, and the partial K slice comes first, zero-filled.
 * What is left (the reference, PIPE_REGS): warps idle at the two barriers of every slice while
 * the next slice's loads are in flight. The reference reads slice s+1 into registers before it
 * multiplies slice s. The kernel is the reference's own (sgemm_tiled.cuh); only the pipeline
 * chosen below differs. */
#include "sgemm_tiled.cuh" /* the reference's kernel, every pipeline */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    sgemm_pipelined<PIPE_NONE>(M, N, K, alpha, A, B, beta, C, stream);
}
