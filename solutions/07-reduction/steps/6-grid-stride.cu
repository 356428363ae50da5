/* Lab 07, rung 6 (Harris's kernel 7): many elements per thread, two launches.
 *
 * Changed from rung 5: a grid that fills the GPU once (SMs x resident blocks per SM, asked of
 * the device), each thread summing a grid-stride run of elements in a register, then one block
 * sum by shuffles (warp sums, then a sum of the 8 warp sums). A second launch of one block adds
 * the partial sums. Why: the tree now runs once per block instead of once per 512 elements, and
 * the kernel is a stream of loads: close to DRAM bandwidth. The reference goes further: 16-byte
 * loads, 4 of them in flight per thread, and the last block to finish adds the partials in the
 * same launch (a counter in scratch), so there is no second launch. */
#include "reduction.h"
#include "check.h"

namespace {

#define THREADS 256 /* threads per block */

/* The sum of v over the warp's 32 lanes, in lane 0: five shuffle levels in registers. */
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void __launch_bounds__(THREADS)
reduce_grid_stride(float *out, const float *in, long long n)
{
    __shared__ float warp_sums[THREADS / 32];
    float sum = 0.0f;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        sum += in[i];
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = warp_sum(threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0)
            out[blockIdx.x] = sum;
    }
}

/* Blocks that fill the device once: SMs x resident blocks per SM. Queried once. */
int full_grid(void)
{
    static int blocks = 0;
    if (blocks == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_grid_stride,
                                                                 THREADS, 0));
        blocks = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    }
    return blocks;
}

} /* namespace */

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    const long long wanted = (n + THREADS - 1) / THREADS;
    const int full = full_grid();
    const int grid = (int)(wanted < full ? wanted : full);
    reduce_grid_stride<<<grid, THREADS, 0, stream>>>(grid == 1 ? result : scratch, in, n);
    CUDA_CHECK_LAUNCH();
    if (grid > 1) { /* the partial sums, one block; scratch holds at least 64 Ki floats */
        reduce_grid_stride<<<1, THREADS, 0, stream>>>(result, scratch, grid);
        CUDA_CHECK_LAUNCH();
    }
}
