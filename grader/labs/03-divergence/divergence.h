/* divergence.h - lab 03's contract: what labs/03-divergence/divergence.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_DIVERGENCE_H
#define CONTRACT_DIVERGENCE_H

/* The grader's sizing code (plain C, no CUDA) includes this header for its constants alone. */
#ifndef CONTRACT_CONSTANTS_ONLY
#include <cuda_runtime.h>
#endif

/* Steps of every element's chain. Long enough that the arithmetic, not memory, sets the time. */
#define DIVERGENCE_STEPS 1024

#ifdef __cplusplus
extern "C" {
#endif

/* Four species of particle, one update rule each. For every i < n:
 *
 *     x = in[i]              in [0, 4), a multiple of 2^-14 (the grader's inputs always are)
 *     c = (int)x             the element's class (species), 0..3
 *     f = x - c              its parameter, in [0, 1)
 *     y = f, then DIVERGENCE_STEPS times:  y = y * m + b,  with (m, b) set by the class:
 *
 *         class 0:  m = 1 - 2^-8 + f * 2^-9     b = f
 *         class 1:  m = 1 - 2^-9 + f * 2^-9     b = 1 - f
 *         class 2:  m = 1 + f * 2^-9            b = f / 2
 *         class 3:  m = 1 + 2^-9 - f * 2^-9     b = 1/4
 *
 *     out[i] = y
 *
 * Every m and b above is exact in float. Each step is one fused multiply-add (fmaf); an
 * unfused multiply then add passes too. The chain is the workload: every element does all
 * DIVERGENCE_STEPS steps (the lab is about how warps execute them, not about shortcuts).
 *
 * out, in: n floats of device memory, 256-byte aligned, not overlapping; n >= 1. Launch your
 * kernel(s) on `stream` and return without synchronizing: the grader times the stream. */
#ifndef CONTRACT_CONSTANTS_ONLY
void divergence(float *out, const float *in, int n, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif
