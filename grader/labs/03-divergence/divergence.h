/* divergence.h - lab 03's contract: what labs/03-divergence/divergence.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_DIVERGENCE_H
#define CONTRACT_DIVERGENCE_H

/* The grader's sizing code (plain C, no CUDA) includes this header for its constants alone. */
#ifndef CONTRACT_CONSTANTS_ONLY
#include <cuda_runtime.h>
#endif

/* Steps of each class's chain: class c runs DIVERGENCE_STEPS_c of them. Long enough that the
 * arithmetic, not memory, sets the time (960 steps per element on average when the four
 * classes are equally common, as in the grader's inputs). */
#define DIVERGENCE_STEPS_0 256
#define DIVERGENCE_STEPS_1 512
#define DIVERGENCE_STEPS_2 1024
#define DIVERGENCE_STEPS_3 2048
#define DIVERGENCE_STEPS_MAX DIVERGENCE_STEPS_3 /* the longest chain */

#ifdef __cplusplus
extern "C" {
#endif

/* Four species of particle, each with its own update rule and its own number of steps. For
 * every i < n:
 *
 *     x = in[i]              in [0, 4), a multiple of 2^-14 (the grader's inputs always are)
 *     c = (int)x             the element's class (species), 0..3
 *     f = x - c              its parameter, in [0, 1)
 *     y = f, then K times:  y = y * m + b,  with (m, b) and K set by the class:
 *
 *         class 0:  m = 1 - 2^-8 + f * 2^-9     b = f        K = DIVERGENCE_STEPS_0 (256)
 *         class 1:  m = 1 - 2^-9 + f * 2^-9     b = 1 - f    K = DIVERGENCE_STEPS_1 (512)
 *         class 2:  m = 1 + f * 2^-9            b = f / 2    K = DIVERGENCE_STEPS_2 (1024)
 *         class 3:  m = 1 + 2^-9 - f * 2^-9     b = 1/4      K = DIVERGENCE_STEPS_3 (2048)
 *
 *     out[i] = y
 *
 * Every m and b above is exact in float. Each step is one fused multiply-add (fmaf); an
 * unfused multiply then add passes too. The chain is the workload: every element does all K
 * steps of its class (the lab is about how warps execute them, not about shortcuts).
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
