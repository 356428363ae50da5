/* Lab 02 - shared-memory bank conflicts: REFERENCE SOLUTION.
 *
 * Rolling maximum over 32 steps of many time series (contract: grader/labs/02-banks/banks.h).
 *
 * Shared memory is 32 banks, each 4 bytes wide: word w lives in bank w % 32, and a bank
 * serves one word per clock. A warp's 32 accesses take one pass when they fall in 32
 * different banks (or on the same word: a broadcast), and n passes when n of them need
 * different words of one bank: an n-way conflict.
 *
 * Thread s follows series s and keeps its last 32 values in a ring buffer in shared memory
 * (an array indexed by a run-time slot cannot live in registers). The 32 threads of a warp
 * always touch the same slot k at the same moment. With `float window[128][32]` thread
 * `lane`'s slot k is word 32 * lane + k: bank k for every lane, a 32-way conflict on every
 * access. With one word of padding per row, `float window[128][33]`, it is word 33 * lane + k,
 * bank (lane + k) % 32: 32 different banks, one pass. Nothing else changes: the global loads
 * and stores are the skeleton's, already coalesced, and with the conflicts gone the kernel
 * runs at the speed of its DRAM traffic (4 bytes read and 4 written per element).
 *
 * What the compiler makes of it (cuobjdump -sass): 32 four-byte LDS per step here, each one
 * pass; in the skeleton nvcc merges 4 neighbouring slots into one 16-byte LDS.128 (its rows
 * are 16-byte aligned; these are not), and 8 threads reading 16 bytes from the same 4 banks
 * take 8 passes per quarter-warp: 256 passes per step instead of 32 here. Either way the
 * skeleton spends 8x longer in shared memory than this kernel. */
#include "banks.h"
#include "check.h"

#include <math.h>

#define THREADS 128 /* series per block: 4 warps; 16.5 KB of shared memory per block, so 13
                       blocks (52 warps) fit in an H200 SM's 228 KB */
#define PAD 1       /* one word per row: thread lane's row starts in bank lane % 32 */

__global__ void __launch_bounds__(THREADS)
rolling_max_kernel(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ float window[THREADS][ROLLING_WINDOW + PAD];

    const int s = blockIdx.x * THREADS + threadIdx.x; /* this thread's series */
    if (s >= series)
        return; /* no barrier below: each thread only ever touches its own row */
    float *w = window[threadIdx.x];
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[k] = -INFINITY; /* an empty slot never wins the maximum */

    /* Each load is issued two steps before its value is used, so its DRAM latency hides
     * behind the work of two steps (of every warp on the SM). */
    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1 /* one step per iteration: README, "what the compiler does with this loop" */
    for (int t = 0; t < steps; t++) {
        const float x = x1;
        x1 = x2;
        x2 = t + 2 < steps ? in[(size_t)(t + 2) * series + s] : 0.0f; /* coalesced */
        w[t % ROLLING_WINDOW] = x; /* the newest value replaces the oldest */
        float m = w[0]; /* slot k of the 32 lanes: 32 different banks, one pass */
        for (int k = 1; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[k]);
        out[(size_t)t * series + s] = m; /* coalesced, like the load */
    }
}

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((series + THREADS - 1) / THREADS);
    rolling_max_kernel<<<blocks, THREADS, 0, stream>>>(out, in, steps, series);
    CUDA_CHECK_LAUNCH();
}
