/* coalescing.h - lab 01's contract: what labs/01-coalescing/coalescing.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_COALESCING_H
#define CONTRACT_COALESCING_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scale and shift every row of a row-major rows x cols matrix by that row's gain and offset:
 *
 *     out[r * cols + c] = in[r * cols + c] * scale[r] + bias[r]    for r < rows, c < cols
 *
 * out, in: rows * cols floats; scale, bias: rows floats. All are device memory, 256-byte
 * aligned, and do not overlap. rows, cols >= 1. Launch your kernel(s) on `stream` and return
 * without synchronizing: the grader times the stream. */
void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
