/* Lab 02 - shared-memory bank conflicts: YOUR FILE.
 *
 * Task: the rolling maximum over the last 32 steps of many time series (contract:
 * grader/labs/02-banks/banks.h). Read labs/02-banks/README.md first.
 *
 * What is yours: everything in this file. Keep the function `rolling_max` with its signature;
 * add kernels and helpers as you like. What is not: the contract header and the grader.
 * Grade it with `make grade LAB=banks`.
 *
 * This version is correct but slow, and its global memory accesses are already good: thread s
 * follows series s, so at every step the 32 threads of a warp read 32 consecutive floats of
 * the input row (one 128-byte line) and write 32 consecutive floats of the output row. Each
 * thread keeps its last 32 values in a ring buffer in shared memory (a per-thread array
 * indexed by a run-time slot cannot live in registers) and takes their maximum at every step.
 * The slow part is that buffer's layout. */
#include "banks.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

#include <math.h>

#define THREADS 128 /* series per block: 4 warps */

__global__ void rolling_max_kernel(float *out, const float *in, int steps, int series)
{
    /* TODO(student): this buffer is the whole problem. Thread `lane` keeps its window in row
     * `lane`, which starts at word 32 * lane, so slot k of every thread is in bank
     * (32 * lane + k) % 32 = k: when the warp reads slot k, all 32 reads queue on one bank.
     * (nvcc reads 4 slots at a time with 16-byte loads; they queue the same way: README.)
     * Change the layout so that the 32 threads' slot k fall in 32 different banks
     * (README: "why +1 works"). */
    __shared__ float window[THREADS][ROLLING_WINDOW];

    const int s = blockIdx.x * THREADS + threadIdx.x; /* this thread's series */
    if (s >= series)
        return;
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
        /* TODO(student): these 32 reads are where the warp waits: see the layout above. */
        float m = w[0];
        for (int k = 1; k < ROLLING_WINDOW; k++)
            m = fmaxf(m, w[k]);
        out[(size_t)t * series + s] = m;
    }
}

void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((series + THREADS - 1) / THREADS);
    rolling_max_kernel<<<blocks, THREADS, 0, stream>>>(out, in, steps, series);
    CUDA_CHECK_LAUNCH();
}
