/* Honest: lab 07 sized from the device on every call: cudaGetDevice, cudaGetDeviceProperties
 * (the SM count and the warp size), cudaDeviceGetAttribute (the SM count again, the most
 * threads per SM) and the occupancy calculator pick a grid of exactly the blocks that fit at
 * once; each block sums a grid-stride share with shuffles into the scratch buffer, and one
 * block adds the partial sums.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

__device__ float block_sum(float v, int warp_size)
{
    __shared__ float warps[THREADS / 32];
    for (int o = warp_size / 2; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % warp_size == 0)
        warps[threadIdx.x / warp_size] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / warp_size ? warps[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ void partial_sums(float *partial, const float *in, long long n, int warp_size)
{
    float v = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        v += in[i];
    v = block_sum(v, warp_size);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = v;
}

__global__ void final_sum(float *result, const float *partial, int count, int warp_size)
{
    float v = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        v += partial[i];
    v = block_sum(v, warp_size);
    if (threadIdx.x == 0)
        *result = v;
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int dev = 0, sms = 0, threads_per_sm = 0, per_sm = 0;
    cudaDeviceProp prop;
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&prop, dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, partial_sums, THREADS, 0);
    if (sms != prop.multiProcessorCount || per_sm < 1 || per_sm * THREADS > threads_per_sm)
        per_sm = 1; /* the answers disagree: one block per SM is always safe */
    long long blocks = (long long)sms * per_sm, needed = (n + THREADS - 1) / THREADS;
    if (blocks > needed)
        blocks = needed;
    if (blocks < 1)
        blocks = 1;
    partial_sums<<<(unsigned)blocks, THREADS, 0, stream>>>(scratch, in, n, prop.warpSize);
    final_sum<<<1, THREADS, 0, stream>>>(result, scratch, (int)blocks, prop.warpSize);
}
