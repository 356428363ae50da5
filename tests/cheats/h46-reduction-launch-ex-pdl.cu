/* Honest: lab 07 in two kernels launched with cudaLaunchKernelEx: block sums into the scratch,
 * then a second kernel, launched with programmatic stream serialization, that waits for them
 * with cudaGridDependencySynchronize (the first triggers its dependent once its block's sum is
 * stored) and adds them (on sm_90 and later; older GPUs, which have no programmatic launch,
 * keep plain stream order). Warp shuffles, then shared memory.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

__device__ float block_sum(float v)
{
    __shared__ float warp_sums[THREADS / 32];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ void __launch_bounds__(THREADS) partial_sums(float *partials, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
    __syncthreads();
#if __CUDA_ARCH__ >= 900 /* programmatic launch is sm_90's; older GPUs keep plain stream order */
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__global__ void __launch_bounds__(THREADS) final_sum(float *result, const float *partials, int count)
{
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize(); /* the partial sums are written and visible */
#endif
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        acc += partials[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        *result = acc;
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int device = 0, sms = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    long long want = (n + THREADS - 1) / THREADS;
    int blocks = (int)(want < 8LL * sms ? want : 8LL * sms);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(THREADS);
    config.stream = stream;
    cudaLaunchKernelEx(&config, partial_sums, scratch, in, n);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.gridDim = dim3(1);
    config.attrs = attribute;
    config.numAttrs = 1;
    cudaLaunchKernelEx(&config, final_sum, result, (const float *)scratch, blocks);
}
