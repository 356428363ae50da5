/* Lab 09 - SGEMM: REFERENCE SOLUTION.
 *
 * C = alpha * A * B + beta * C in fp32, row-major, any M, N, K (contract:
 * grader/labs/09-sgemm/sgemm.h). This is the top of the ladder in labs/09-sgemm/README.md:
 *
 *   block tiling   a block computes a BM x BN tile of C; A and B pass through shared memory
 *                  in BK-deep slices, so each global element is read once per tile, not
 *                  once per output (arithmetic intensity from global memory: BM*BN*BK FMAs,
 *                  2 flops each, per (BM+BN)*BK floats of 4 bytes: BM*BN / (2 (BM+BN))
 *                  flops per byte).
 *   warp tiling    the block's warps each own a WM x WN sub-tile, and each lane an
 *                  (4*MI) x (4*NI) register tile made of 4x4 pieces spread over the warp
 *                  tile: a lane's A and B fragments are 16-byte aligned runs (LDS.128) that
 *                  the warp reads without bank conflicts.
 *   register tile  per k step a lane loads 4*MI + 4*NI floats and does 16*MI*NI FMAs: an
 *                  8x8 tile is 16 floats for 64 FMAs, so the FMA pipe, not shared memory,
 *                  limits the speed.
 *   pipelining     the next BK slice is read from global memory into registers before the
 *                  current one is multiplied and stored to the other of two shared stages
 *                  after it, so its latency hides behind 512 FMAs per thread and there is one
 *                  barrier per slice. This runs on every GPU (and the CPU emulator).
 *                  The alternative, cp.async (sm_80+: global -> shared without registers,
 *                  several stages deep; PIPE_ASYNC below), measured 25% SLOWER on an H200:
 *                  A must be transposed on its way into shared memory, which cp.async can
 *                  only do 4 bytes at a time, and those small copies go through L1 and crowd
 *                  the same pipe as the LDS.128 fragment loads (ncu: issue slots busy 62%
 *                  against 79%). The reference therefore uses registers everywhere; the
 *                  cp.async pipeline stays here as a bench variant (README, step 7b).
 *   edges          any M, N, K: rows and columns past the edge of C are clamped to the last
 *                  valid one on load (always in bounds, no branch in the main loop) and
 *                  discarded on store; the last, partial BK slice is zero-filled. When K or N
 *                  is not a multiple of 4, rows are not 16-byte aligned and the same kernel
 *                  is instantiated with 4-byte loads.
 *
 * Plain FFMA only: no tensor cores, no TF32. The kernel and its launch are in sgemm_tiled.cuh
 * beside this file (ladder rungs 6 and 7 are the same kernel with another pipeline); this file
 * chooses the pipeline. */
#include "sgemm_tiled.cuh" /* Tile, the loaders, the kernel, sgemm_pipelined */

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    sgemm_pipelined<PIPE_REGS>(M, N, K, alpha, A, B, beta, C, stream);
}
