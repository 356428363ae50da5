/* Honest: lab 05 helpers of the student's own whose names look like the driver API's
 * (cu[A-Z]...) or the runtime's: defined here, so they are the student's, whatever the name. */
#include "streams.h"
namespace cuda_helpers { static size_t cuChunk(size_t n) { return n < 4096 ? n : 4096; } }
static size_t cuChunkFloats(size_t n, int parts) { return (n + parts - 1) / parts; }
__global__ void cuScaleKernel(float *x, size_t n) { if (threadIdx.x < n) x[threadIdx.x] *= 1.f; }
void cudaLikeCopy(float *dst, const float *src, size_t n, cudaStream_t s)
{
    cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDefault, s);
}
int cuGetProcAddressCount = 0; /* a counter of its own, named like the driver's resolver */
void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    const size_t chunk = cuChunkFloats(n, 4) + cuda_helpers::cuChunk(0) + cuGetProcAddressCount;
    for (size_t o = 0; o < n; o += chunk) {
        const size_t len = n - o < chunk ? n - o : chunk;
        cudaLikeCopy(d_in + o, h_in + o, len, 0);
        process(d_out + o, d_in + o, len, 0);
        cudaLikeCopy(h_out + o, d_out + o, len, 0);
    }
    cudaStreamSynchronize(0);
}
