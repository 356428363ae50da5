/* Lab 05: the driver's own resolver, cuGetProcAddress. */
#include "streams.h"
#include <cuda.h>
void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    void *f = 0;
    cuGetProcAddress("cuMemcpyDtoH", &f, 12000, CU_GET_PROC_ADDRESS_DEFAULT, 0);
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    process(d_out, d_in, n, 0);
    ((CUresult(*)(void *, CUdeviceptr, size_t))f)(h_out, (CUdeviceptr)d_out, n * sizeof(float));
}
