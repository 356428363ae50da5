/* ilp.h - lab 04's contract: what labs/04-ilp/ilp.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_ILP_H
#define CONTRACT_ILP_H

/* The grader's sizing code (plain C, no CUDA) includes this header for its constants alone. */
#ifndef CONTRACT_CONSTANTS_ONLY
#include <cuda_runtime.h>
#endif

/* Steps of every element's chain in ilp_arith, and the chain's constant term. */
#define ILP_STEPS 1024
#define ILP_C 0x1p-10f

#ifdef __cplusplus
extern "C" {
#endif

/* THE LAUNCH IS FIXED. Each entry point receives `blocks` and `threads` from the grader (one
 * block per SM, threads = 1/8 of an SM's thread slots: 256 on an H200, so 12.5% occupancy)
 * and must launch exactly ONE kernel, as kernel<<<blocks, threads, 0, stream>>>(...), and
 * nothing else (no copies, no other kernels, no other stream). The grader records the launch
 * (it captures your call into a CUDA graph) and rejects any other shape. You change only the
 * work each thread does.
 *
 * out, in: n floats of device memory, 256-byte aligned (float4 access is fine), not
 * overlapping; 1 <= n <= 2^30. Return without synchronizing: the grader times the stream. */

/* Memory: out[i] = in[i] * a for every i < n (one multiply, rounded: compared bit for bit). */
#ifndef CONTRACT_CONSTANTS_ONLY
void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream);
#endif

/* Arithmetic: for every i < n, with x = in[i]:
 *     y = x, then ILP_STEPS times  y = fmaf(y, x, ILP_C),  and out[i] = y.
 * Each element's chain is dependent (every step needs the previous y); different elements'
 * chains are independent of each other. Every element does all ILP_STEPS steps. */
#ifndef CONTRACT_CONSTANTS_ONLY
void ilp_arith(float *out, const float *in, int n, int blocks, int threads,
               cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif
