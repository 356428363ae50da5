/* Lab 07: a CUB function declared by hand and left for the link to find (what a file does
 * where CUB's headers are missing, as under the CPU emulator). */
#include "reduction.h"
extern void cub_DeviceReduce_Sum(void);
void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)result, (void)in, (void)n, (void)scratch, (void)stream;
    cub_DeviceReduce_Sum();
}
