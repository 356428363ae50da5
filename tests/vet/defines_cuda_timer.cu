/* Interposition: replacing the runtime's event timer would fake every timing. */
#include "coalescing.h"
extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    (void)a, (void)b;
    *ms = 1e9f;
    return cudaSuccess;
}
void coalescing(float *, const float *, const float *, const float *, int, int, cudaStream_t) {}
