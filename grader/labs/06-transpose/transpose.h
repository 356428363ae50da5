/* transpose.h - lab 06's contract: what labs/06-transpose/transpose.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_TRANSPOSE_H
#define CONTRACT_TRANSPOSE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Out-of-place transpose of a row-major rows x cols matrix into a row-major cols x rows one:
 *
 *     out[c * rows + r] = in[r * cols + c]    for r < rows, c < cols
 *
 * out, in: rows * cols floats of device memory, 256-byte aligned, not overlapping.
 * rows, cols >= 1, any values (neither need be a multiple of anything); rows * cols fits in
 * memory. Compared bit for bit: the data only moves. Launch your kernel(s) on `stream` and
 * return without synchronizing: the grader times the stream. */
void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
