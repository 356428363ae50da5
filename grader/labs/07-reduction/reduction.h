/* reduction.h - lab 07's contract: what labs/07-reduction/reduction.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_REDUCTION_H
#define CONTRACT_REDUCTION_H

/* The grader's sizing code (plain C, no CUDA) includes this header for its constants alone. */
#ifndef CONTRACT_CONSTANTS_ONLY
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Floats of scratch memory the grader passes for an input of n floats: one partial sum for
 * every 128 inputs plus 64 Ki floats (256 KiB). That holds the partial sums of every pass of a
 * tree that shrinks the data at least 128-fold per pass (1/256 + 1/256^2 + ... of n) or the
 * per-block partials and a counter of a one-pass kernel on any GPU. */
static inline long long reduction_scratch_floats(long long n)
{
    return n / 128 + 65536;
}

/* Sum n floats into one:
 *
 *     *result = in[0] + in[1] + ... + in[n - 1]     (in any order: float addition rounds)
 *
 * result: one float; in: n floats; scratch: reduction_scratch_floats(n) floats. All are device
 * memory, 256-byte aligned, and do not overlap. n >= 1. scratch is all zero bits when the call
 * starts (the grader clears it before every call, untimed) and is yours to use during it; in
 * must not change. Launch your kernel(s) on `stream` and return without synchronizing and
 * without copying anything to the host: the grader times the stream, and the result stays on
 * the device. */
#ifndef CONTRACT_CONSTANTS_ONLY
void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif
