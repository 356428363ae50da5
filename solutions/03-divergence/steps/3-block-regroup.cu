/* Lab 03, rung 3: regroup each block's elements by class, then run the skeleton's four loops.
 *
 * Changed from rung 2: the branch is back (the skeleton's four separate loops, different code
 * per class, as real species would have), and what changed is which elements share a warp.
 * Each block takes a tile of 1024 elements, counts their classes with shared-memory atomics
 * (the count also hands each element a slot in its class's bin), writes the tile's positions
 * into the bins back to back in shared memory, and its threads then walk that order: 32
 * neighbouring positions, one warp, hold one class, so the warp takes one path and runs one
 * chain of its class's length, 960 steps on average instead of rung 2's 2048. Why it is not
 * yet the reference: a bin rarely holds a multiple of 32, so the warp that straddles two bins
 * (up to three per tile) runs two chains; and the walk gives warp w the positions w, w + 8,
 * w + 16 ... of the tile's 32 groups, which balances the warps only while the four bins are
 * near equal. The reference carries each bin's partial group over to the next tile and hands
 * the groups out longest class first. */
#include "divergence.h"
#include "check.h"

namespace {

#define THREADS 256
#define PER_THREAD 4
#define TILE (THREADS * PER_THREAD)

/* The contract's four rules, each its own loop of its own length (as in the skeleton). */
__device__ float evolve(int c, float f)
{
    float m, b;
    float y = f;
    switch (c) { /* a warp whose lanes disagree runs several of these; here they rarely do */
    case 0:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
        for (int k = 0; k < DIVERGENCE_STEPS_0; k++)
            y = fmaf(y, m, f);
        return y;
    case 1:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
        for (int k = 0; k < DIVERGENCE_STEPS_1; k++)
            y = fmaf(y, m, b);
        return y;
    case 2:
        m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
        for (int k = 0; k < DIVERGENCE_STEPS_2; k++)
            y = fmaf(y, m, b);
        return y;
    default:
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
        for (int k = 0; k < DIVERGENCE_STEPS_3; k++)
            y = fmaf(y, m, 0.25f);
        return y;
    }
}

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
