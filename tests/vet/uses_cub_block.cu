/* Lab 07's tree done by CUB's block-level primitive inside the student's own kernel. */
#include "reduction.h"
#include <cub/block/block_reduce.cuh>
__global__ void sum_blocks(const float *in, float *out, long long n)
{
    using BR = cub::BlockReduce<float, 256>;
    __shared__ typename BR::TempStorage t;
    const long long i = blockIdx.x * 256ll + threadIdx.x;
    const float s = BR(t).Sum(i < n ? in[i] : 0.f);
    if (threadIdx.x == 0)
        atomicAdd(out, s);
}
void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    sum_blocks<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(in, result, n);
}
