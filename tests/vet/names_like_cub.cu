/* Honest: lab 07 names of the student's own that contain every word the lab's libraries use:
 * NVIDIA's blog post calls its kernel DeviceReduceKernel; a namespace thrust_like, a struct
 * cubic with a member thrust, helpers cub_sum and cublas_free_sum, a DeviceScan-like step. */
#include "reduction.h"
namespace thrust_like {
__device__ float plus(float a, float b) { return a + b; }
}
struct cubic {
    static float thrust(float x) { return x; }
};
__global__ void DeviceReduceKernel(const float *in, float *out, long long n)
{
    float s = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        s = thrust_like::plus(s, in[i]);
    atomicAdd(out, s);
}
__global__ void DeviceSegmentedReduceStep(float *out) { (void)out; }
__global__ void DeviceScanStep(float *out) { (void)out; }
float cub_sum(float x) { return cubic::thrust(x); }
float cublas_free_sum(float x) { return cub_sum(x); }
void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    DeviceReduceKernel<<<1, 256, 0, stream>>>(in, result, n);
    (void)cublas_free_sum(0.f);
}
