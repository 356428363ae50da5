/* Honest: lab 03 regrouped in another style: the class as data from a __constant__ table (m and
 * b are affine in f, with a slope and an intercept per class; the step count from a table
 * too), so no branch depends on the class at all; a template parameter for the elements per
 * thread; one block per tile, no persistent grid, no carried leftovers. Each block counts its
 * tile's classes with shared atomics and walks the tile in class order, so a warp's 32 lanes
 * hold one class (but where two classes meet) and share one step count.
 * lab: divergence
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "divergence.h"

/* Per class: m = m0 + f * ms, b = b0 + f * bs (each product by a power of two or 0, +-1: exact). */
__constant__ float4 k_rule[4] = {
    {1.0f - 0x1p-8f, 0x1p-9f, 0.0f, 1.0f},
    {1.0f - 0x1p-9f, 0x1p-9f, 1.0f, -1.0f},
    {1.0f, 0x1p-9f, 0.0f, 0.5f},
    {1.0f + 0x1p-9f, -0x1p-9f, 0.25f, 0.0f},
};
__constant__ int k_steps[4] = {DIVERGENCE_STEPS_0, DIVERGENCE_STEPS_1, DIVERGENCE_STEPS_2,
                               DIVERGENCE_STEPS_3};

template <int PER_THREAD, int THREADS>
__global__ void sorted_chains(float *out, const float *in, int n)
{
    constexpr int kTile = PER_THREAD * THREADS;
    __shared__ int count[4], start[4];
    __shared__ unsigned short order[kTile]; /* the tile's positions, in class order */
    const long long base = (long long)blockIdx.x * kTile;
    if (threadIdx.x < 4)
        count[threadIdx.x] = 0;
    __syncthreads();
    int cls[PER_THREAD], slot[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const int j = threadIdx.x + k * THREADS;
        cls[k] = base + j < n ? (int)in[base + j] & 3 : -1;
        if (cls[k] >= 0)
            slot[k] = atomicAdd(&count[cls[k]], 1);
    }
    __syncthreads();
    if (threadIdx.x < 4) {
        int s = 0;
        for (int c = 0; c < (int)threadIdx.x; c++)
            s += count[c];
        start[threadIdx.x] = s;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++)
        if (cls[k] >= 0)
            order[start[cls[k]] + slot[k]] = (unsigned short)(threadIdx.x + k * THREADS);
    __syncthreads();
    const int total = start[3] + count[3];
    for (int p = threadIdx.x; p < total; p += THREADS) {
        const long long i = base + order[p];
        const float x = in[i];
        const int c = (int)x & 3;
        const float f = x - (float)c;
        const float4 r = k_rule[c];
        const float m = fmaf(f, r.y, r.x), b = fmaf(f, r.w, r.z);
        float y = f;
        for (int step = k_steps[c]; step > 0; step--) /* the same count in (nearly) every lane */
            y = fmaf(y, m, b);
        out[i] = y;
    }
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    constexpr int kPer = 8, kThreads = 128;
    const long long tile = kPer * kThreads;
    const int blocks = (int)((n + tile - 1) / tile);
    sorted_chains<kPer, kThreads><<<blocks, kThreads, 0, stream>>>(out, in, n);
}
