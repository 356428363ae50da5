/* Lab 03, rung 4: regroup each block's tile by class, and give every warp a share of each class.
 *
 * Changed from rung 3: a block takes a tile of 1024 elements, four per thread, and its threads
 * walk the tile in class order with a stride of the block: thread t runs positions t, t + 256,
 * t + 512, t + 768. The bins hold about 256 elements each, so warp w's four groups of 32 are
 * the w-th group of each bin: one group of every class, 3840 steps for every warp, one chain
 * at a time and each warp-uniform. The block's warps now end together, so its slots hold
 * running warps to the end (rung 3's blocks held finished ones beside their class-3 warps).
 * Why it is not yet the reference: the bins are equal only on average, so warps draw two
 * groups of one class and none of another, and their times spread; a bin rarely holds a
 * multiple of 32, so the warps that straddle two bins (up to three per tile) run two chains;
 * and a grid of 1024-element tiles ends in a partial wave. The reference carries each bin's
 * partial group over to the next tile, hands the groups out longest class first from a
 * shared counter, and runs a persistent grid. */
#include "divergence.h"
#include "check.h"
#include "rung_chains.cuh" /* evolve(c, f): the four classes' chains, by a switch */

namespace {

#define THREADS 256
#define PER_THREAD 4
#define TILE (THREADS * PER_THREAD)

__global__ void regroup_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    __shared__ int count[4], start[4];
    __shared__ short order[TILE]; /* the tile's positions, by class */
    const long long base = (long long)blockIdx.x * TILE;
    if (threadIdx.x < 4)
        count[threadIdx.x] = 0;
    __syncthreads();
    int cls[PER_THREAD], slot[PER_THREAD];
    for (int k = 0; k < PER_THREAD; k++) {
        const int j = threadIdx.x + k * THREADS; /* coalesced: a warp reads 32 neighbours */
        cls[k] = -1;
        if (base + j < n) {
            cls[k] = (int)in[base + j];
            slot[k] = atomicAdd(&count[cls[k]], 1);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int c = 0, s = 0; c < 4; c++)
            start[c] = s, s += count[c];
    __syncthreads();
    for (int k = 0; k < PER_THREAD; k++)
        if (cls[k] >= 0)
            order[start[cls[k]] + slot[k]] = (short)(threadIdx.x + k * THREADS);
    __syncthreads();
    const int total = start[3] + count[3];
    for (int p = threadIdx.x; p < total; p += THREADS) { /* a warp: 32 positions of one class */
        const long long i = base + order[p];
        const float x = in[i]; /* read again: the tile's 4 KB are still in the caches */
        const int c = (int)x;
        out[i] = evolve(c, x - (float)c);
    }
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    const int blocks = (int)(((long long)n + TILE - 1) / TILE);
    regroup_kernel<<<blocks, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
