/* banks.h - lab 02's contract: what labs/02-banks/banks.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_BANKS_H
#define CONTRACT_BANKS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROLLING_WINDOW 32 /* steps in the window */

/* Rolling maximum over the last ROLLING_WINDOW steps of each of `series` time series, stored
 * time-major: step t of series s is in[t * series + s] (one row per time step).
 *
 *     out[t * series + s] = max { in[u * series + s] : max(0, t - 31) <= u <= t }
 *
 * for t < steps, s < series: the first 31 steps of a series take the maximum of the steps seen
 * so far. out, in: steps * series floats of device memory, 256-byte aligned, not overlapping;
 * inputs are finite. steps, series >= 1. Compared exactly: a maximum only selects values.
 * Launch your kernel(s) on `stream` and return without synchronizing: the grader times the
 * stream. */
void rolling_max(float *out, const float *in, int steps, int series, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
