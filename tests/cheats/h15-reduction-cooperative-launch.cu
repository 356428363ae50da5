/* Honest: lab 07 with a cooperative launch: one kernel whose blocks all meet at grid.sync()
 * (cudaLaunchCooperativeKernel, the grid sized from the occupancy calculator so that every
 * block is resident), partial sums in the scratch, then the first block adds them. Correct;
 * its scalar loads keep it well below the reference's speed (0.57x on an H200).
 * lab: reduction
 * where: gpu
 * expect: all-correct=OK */
#include "reduction.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 256

__global__ void __launch_bounds__(THREADS) grid_sum(float *result, const float *in, long long n,
                                                    float *partials)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float s[THREADS / 32];
    float acc = 0.0f;
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
        acc += in[i];
    for (int o = 16; o > 0; o /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0)
        s[threadIdx.x / 32] = acc;
    block.sync();
    if (threadIdx.x == 0) {
        float b = 0.0f;
        for (int w = 0; w < THREADS / 32; w++)
            b += s[w];
        partials[blockIdx.x] = b;
    }
    grid.sync();
    if (blockIdx.x != 0)
        return;
    float t = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        t += partials[b];
    for (int o = 16; o > 0; o /= 2)
        t += __shfl_down_sync(0xffffffffu, t, o);
    if (threadIdx.x % 32 == 0)
        s[threadIdx.x / 32] = t;
    block.sync();
    if (threadIdx.x == 0) {
        float r = 0.0f;
        for (int w = 0; w < THREADS / 32; w++)
            r += s[w];
        *result = r;
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, THREADS, 0);
    long long blocks = (long long)sms * per_sm;
    if (blocks > 65536)
        blocks = 65536;
    if (blocks > (n + THREADS - 1) / THREADS)
        blocks = (n + THREADS - 1) / THREADS;
    void *args[] = {&result, &in, &n, &scratch};
    cudaLaunchCooperativeKernel((const void *)grid_sum, dim3((unsigned)blocks), dim3(THREADS), args,
                                0, stream);
}
