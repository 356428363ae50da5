/* Lab 07 done by thrust::reduce. */
#include "reduction.h"
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    const float s = thrust::reduce(thrust::cuda::par.on(stream), in, in + n, 0.f);
    cudaMemcpyAsync(result, &s, sizeof s, cudaMemcpyHostToDevice, stream);
}
