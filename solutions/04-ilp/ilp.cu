/* Lab 04 - ILP vs TLP: REFERENCE SOLUTION.
 *
 * The launch is fixed by the grader (contract: grader/labs/04-ilp/ilp.h): one block per SM, 1/8
 * of the SM's thread slots (256 threads, 8 warps, on an H200). Occupancy cannot supply the
 * parallelism that hides latency, so each thread supplies it itself: instruction-level
 * parallelism, independent operations in flight per thread.
 *
 * Little's law: work in flight = throughput x latency.
 *   Memory: about 2 TB/s of reads x about 0.7 us = about 1.4 MB in flight over the whole
 *   GPU, about 11 KB per SM (the README's numbers). 256 threads x 4 bytes (one float each) =
 *   1 KB: a tenth of it. 256 threads x 16 float4 loads x 16 bytes = 64 KB: room to spare.
 *   Arithmetic: 4 schedulers per SM, each issuing one FMA per cycle, each FMA ready 4 cycles
 *   after its input: 16 independent FMAs per SM per cycle. 8 warps x 1 chain = 8; 8 warps x 4
 *   independent chains = 32: enough. */
#include "ilp.h"
#include "check.h"

/* ------------------------------------------------------------------------------------------ */
/* Memory: 16 independent float4 loads in flight per thread                                   */

#define LOADS 16 /* float4 loads issued before the first use: 256 bytes per thread */

/* Thread t of the grid (S threads in all) takes float4 number t, t + S, ..., t + 15S, then
 * the next 16S, and so on: each load of a warp reads 32 consecutive float4 (512 contiguous
 * bytes, coalesced), and the whole grid sweeps the array together, so at any moment the
 * requests in flight cover one contiguous window spread over every DRAM channel. (Giving
 * each block its own contiguous share instead measured 0.81 of cudaMemcpy at the same 16
 * loads in flight, against 0.93 for this sweep: see the README.) All 16 loads are issued
 * before the first value is used; the bounds test only guards the array's end. */
__global__ void scale_vec4_kernel(float4 *__restrict__ out, const float4 *__restrict__ in,
                                  float a, int n)
{
    const int n4 = n / 4, S = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n4; base += LOADS * S) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * S < n4)
                v[k] = in[base + k * S];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * S < n4)
                out[base + k * S] =
                    make_float4(v[k].x * a, v[k].y * a, v[k].z * a, v[k].w * a);
    }
    /* The last n % 4 floats, which no float4 covers. */
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4)
        ((float *)out)[4 * n4 + threadIdx.x] = ((const float *)in)[4 * n4 + threadIdx.x] * a;
}

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_vec4_kernel<<<blocks, threads, 0, stream>>>((float4 *)out, (const float4 *)in, a, n);
    CUDA_CHECK_LAUNCH();
}

/* ------------------------------------------------------------------------------------------ */
/* Arithmetic: 4 independent chains per thread                                                */

#define CHAINS 4 /* elements whose chains a thread advances side by side */

/* Thread t takes elements t, t + S, t + 2S, t + 3S (S = all threads of the grid), then the
 * next 4S, and so on. In the step loop the 4 FMAs of one step do not depend on each other,
 * so the scheduler issues them on consecutive cycles; by the time it comes back to chain 0,
 * 4 cycles later, chain 0's previous FMA is done. The next group's inputs are loaded before
 * this group's chains start, so their DRAM latency hides behind 4096 FMAs. */
__global__ void chains_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int S = gridDim.x * blockDim.x;
    int base = blockIdx.x * blockDim.x + threadIdx.x;
    float next[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; j++)
        next[j] = base + j * S < n ? in[base + j * S] : 1.0f;
    for (; base < n; base += CHAINS * S) {
        float x[CHAINS], y[CHAINS];
#pragma unroll
        for (int j = 0; j < CHAINS; j++) {
            x[j] = y[j] = next[j];
            const int i = base + CHAINS * S + j * S;
            next[j] = i < n ? in[i] : 1.0f; /* past the end: a dummy chain, never stored */
        }
        /* Unrolled 64 steps deep: the loop's own counter and branch cost 3 issue slots per
         * 256 FMAs, not per 4. */
#pragma unroll 64
        for (int k = 0; k < ILP_STEPS; k++)
#pragma unroll
            for (int j = 0; j < CHAINS; j++)
                y[j] = fmaf(y[j], x[j], ILP_C);
#pragma unroll
        for (int j = 0; j < CHAINS; j++)
            if (base + j * S < n)
                out[base + j * S] = y[j];
    }
}

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    chains_kernel<<<blocks, threads, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
