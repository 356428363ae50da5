/* Lab 05's driver API reached at run time by name, so no cu* symbol is left undefined. */
#include "streams.h"
typedef int (*copy_fn)(unsigned long long, const void *, size_t);
void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    void *f = 0;
    cudaDriverEntryPointQueryResult q;
    cudaGetDriverEntryPointByVersion("cuMemcpyHtoD", &f, 12000, cudaEnableDefault, &q);
    ((copy_fn)f)((unsigned long long)d_in, h_in, n * sizeof(float));
    process(d_out, d_in, n, 0);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
}
