/* Honest: lab 03 with the regrouping done inside each warp by vote: a warp loads 128 elements
 * (four a lane), sorts them by class into its own slice of shared memory with __ballot_sync
 * and __popc (each class's elements packed in turn, no atomics, no block-wide barrier), then
 * every lane runs the chains of sorted elements lane, lane + 32, lane + 64 and lane + 96, so
 * that the lanes of a warp mostly share a class, and writes each result to its element's own
 * index. Warp intrinsics, a lane mask and a per-warp shared slice: a style no check may
 * mistake for a forbidden shortcut.
 * lab: divergence
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "divergence.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define PER_LANE 4
#define PER_WARP (32 * PER_LANE)

__device__ __forceinline__ float chain(float x)
{
    const int c = (int)x;
    const float f = x - (float)c;
    float m, b;
    int k;
    switch (c) {
    case 0: m = 1.0f - 0x1p-8f + f * 0x1p-9f; b = f; k = DIVERGENCE_STEPS_0; break;
    case 1: m = 1.0f - 0x1p-9f + f * 0x1p-9f; b = 1.0f - f; k = DIVERGENCE_STEPS_1; break;
    case 2: m = 1.0f + f * 0x1p-9f; b = f * 0.5f; k = DIVERGENCE_STEPS_2; break;
    default: m = 1.0f + 0x1p-9f - f * 0x1p-9f; b = 0.25f; k = DIVERGENCE_STEPS_3; break;
    }
    float y = f;
    for (int s = 0; s < k; s++)
        y = fmaf(y, m, b);
    return y;
}

__global__ void __launch_bounds__(THREADS) sorted_by_vote(float *out, const float *in, int n)
{
    __shared__ float val[WARPS][PER_WARP];
    __shared__ int idx[WARPS][PER_WARP];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    const long long warps_total = (long long)gridDim.x * WARPS;
    for (long long w = (long long)blockIdx.x * WARPS + warp; w * PER_WARP < n; w += warps_total) {
        const long long first = w * PER_WARP;
        float x[PER_LANE];
        int cls[PER_LANE];
        for (int j = 0; j < PER_LANE; j++) {
            const long long i = first + j * 32 + lane;
            x[j] = i < n ? in[i] : 0.0f;
            cls[j] = i < n ? (int)x[j] : -1; /* (past the end: no class, never placed) */
        }
        int base = 0;
        for (int c = 0; c < 4; c++)
            for (int j = 0; j < PER_LANE; j++) {
                const unsigned mask = __ballot_sync(0xffffffffu, cls[j] == c);
                if (cls[j] == c) {
                    const int at = base + __popc(mask & below);
                    val[warp][at] = x[j];
                    idx[warp][at] = j * 32 + lane;
                }
                base += __popc(mask);
            }
        __syncwarp();
        for (int at = lane; at < base; at += 32)
            out[first + idx[warp][at]] = chain(val[warp][at]);
        __syncwarp(); /* (the slice is read by every lane before the next tile overwrites it) */
    }
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long tiles = ((long long)n + PER_WARP - 1) / PER_WARP;
    long long blocks = (tiles + WARPS - 1) / WARPS;
    if (blocks > 16LL * sms)
        blocks = 16LL * sms;
    sorted_by_vote<<<(unsigned)blocks, THREADS, 0, stream>>>(out, in, n);
}
