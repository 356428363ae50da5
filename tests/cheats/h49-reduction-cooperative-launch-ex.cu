/* Honest: lab 07 in one cooperative kernel launched with cudaLaunchKernelEx and the
 * cooperative attribute: a grid sized from the occupancy calculator, so that every block is
 * resident; each block stores its sum in the scratch, the grid meets at grid.sync(), and
 * block 0 adds the block sums.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128

__device__ float block_sum(float v, float *warp_sums)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    return v;
}

__global__ void __launch_bounds__(THREADS) one_pass(float *result, const float *in, long long n,
                                                    float *partials)
{
    __shared__ float warp_sums[THREADS / 32];
    cg::grid_group grid = cg::this_grid();
    float acc = 0.0f;
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
        acc += in[i];
    acc = block_sum(acc, warp_sums);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
    grid.sync();
    if (blockIdx.x != 0)
        return;
    acc = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += THREADS)
        acc += partials[i];
    acc = block_sum(acc, warp_sums);
    if (threadIdx.x == 0)
        *result = acc;
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int device = 0, sms = 1, per_sm = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, one_pass, THREADS, 0);
    long long want = (n + THREADS - 1) / THREADS;
    long long fit = (long long)sms * (per_sm < 2 ? per_sm : 2);
    cudaLaunchAttribute cooperative[1];
    cooperative[0].id = cudaLaunchAttributeCooperative;
    cooperative[0].val.cooperative = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)(want < fit ? want : fit));
    config.blockDim = dim3(THREADS);
    config.stream = stream;
    config.attrs = cooperative;
    config.numAttrs = 1;
    cudaLaunchKernelEx(&config, one_pass, result, in, n, scratch);
}
