/* Lab 04 - ILP vs TLP (Volkov's "better performance at lower occupancy"): YOUR FILE.
 *
 * Two tasks, two entry points (contract: grader/labs/04-ilp/ilp.h). Read labs/04-ilp/README.md.
 *   ilp_memory: out[i] = in[i] * a over a large array (memory-bound)
 *   ilp_arith:  a chain of ILP_STEPS dependent FMAs per element (compute-bound)
 *
 * The launch is NOT yours: each entry point gets `blocks` (one per SM) and `threads` (1/8 of
 * an SM's thread slots) and must launch exactly one kernel with <<<blocks, threads, 0,
 * stream>>>. The grader records the launch and rejects any other. So occupancy is stuck at
 * 12.5%: the only thing you can change is how much independent work each thread keeps in
 * flight. Everything else in this file is yours. Grade it with `make grade LAB=ilp`.
 *
 * This version is correct but slow: each thread handles one element at a time and waits
 * for it (its load, or its whole FMA chain) before it starts the next. */
#include "ilp.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */

__global__ void scale_kernel(float *out, const float *in, float a, int n)
{
    /* TODO(student): each iteration issues ONE 4-byte load and must wait for it (about
     * 0.7 us of DRAM latency under load) before the store and the next load. With 8 warps
     * per SM, that is far too few bytes in flight to keep DRAM busy (Little's law: bytes
     * in flight = bandwidth x latency). Keep several loads in flight per thread before the
     * first use: load 16 bytes at a time (float4), and issue several independent float4
     * loads (into registers) before you multiply and store any of them. Handle the end of
     * the array (n need not be a multiple of 4, or of your chunk). */
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i] * a;
}

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_kernel<<<blocks, threads, 0, stream>>>(out, in, a, n); /* fixed: do not change */
    CUDA_CHECK_LAUNCH();
}

/* ------------------------------------------------------------------------------------------ */
/* Arithmetic                                                                                 */

__global__ void chain_kernel(float *out, const float *in, int n)
{
    /* TODO(student): every step needs the previous y, so one chain issues one FMA per FMA
     * latency (4 cycles), and 2 warps per scheduler can't fill the gaps. Give each thread
     * several elements at once (say 4: i, i + stride, i + 2*stride, i + 3*stride) and
     * advance their chains side by side in the same loop: independent FMAs the scheduler
     * can issue back to back. Each element's own chain must stay exactly as it is. */
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float x = in[i];
        float y = x;
        for (int k = 0; k < ILP_STEPS; k++)
            y = fmaf(y, x, ILP_C);
        out[i] = y;
    }
}

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    chain_kernel<<<blocks, threads, 0, stream>>>(out, in, n); /* fixed: do not change */
    CUDA_CHECK_LAUNCH();
}
