/* Lab 03 candidate: regrouping inside each block, no persistent grid and no global atomics.
 *
 * An honest variant of the lesson's technique, written as a student might after reading it:
 * each block takes a tile of 1024 elements, counts their classes with shared-memory atomics,
 * orders the tile's indices by class in shared memory, and then its threads walk that order,
 * so that 32 neighbouring positions, one warp, hold one class (but at the few class
 * boundaries of each tile). The chains are the skeleton's four loops; what changed is which
 * elements share a warp. tests/gpu/lab03-divergence.sh times it beside the rungs and the
 * reference, to see where an honest regrouping lands against a candidate pass mark. */
#include "divergence.h"

namespace {

#define THREADS 256
#define PER_THREAD 4
#define TILE (THREADS * PER_THREAD)

__device__ float evolve(int c, float f)
{
    float m, b;
    float y = f;
    switch (c) { /* four separate loops: a warp whose lanes disagree runs several */
    case 0:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
        for (int k = 0; k < DIVERGENCE_STEPS; k++)
            y = fmaf(y, m, f);
        return y;
    case 1:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
        for (int k = 0; k < DIVERGENCE_STEPS; k++)
            y = fmaf(y, m, b);
        return y;
    case 2:
        m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
        for (int k = 0; k < DIVERGENCE_STEPS; k++)
            y = fmaf(y, m, b);
        return y;
    default:
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
        for (int k = 0; k < DIVERGENCE_STEPS; k++)
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
        const float x = in[i];
        const int c = (int)x;
        out[i] = evolve(c, x - (float)c);
    }
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    const int blocks = (int)(((long long)n + TILE - 1) / TILE);
    regroup_kernel<<<blocks, THREADS, 0, stream>>>(out, in, n);
}
