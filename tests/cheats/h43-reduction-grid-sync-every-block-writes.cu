/* Honest: lab 07 with a cooperative launch and two grid.sync()s: partial sums per block, then
 * every block adds all the partials in the same order and stores the same total to the result
 * (writes of one value from every block, with nothing but the grid's barrier before them), and
 * after the second grid.sync() block 0 checks the result against its own total. A cooperative
 * launch's blocks may run in any order between the barriers; nothing here depends on it.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "reduction.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 256

__global__ void __launch_bounds__(THREADS) grid_total(float *result, const float *in, long long n,
                                                      float *partials)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ float s[THREADS / 32];
    float acc = 0.0f;
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
        acc += in[i];
    for (int o = 16; o > 0; o /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0)
        s[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float b = 0.0f;
        for (int w = 0; w < THREADS / 32; w++)
            b += s[w];
        partials[blockIdx.x] = b;
    }
    grid.sync();
    float total = 0.0f;
    if (threadIdx.x == 0) {
        for (unsigned b = 0; b < gridDim.x; b++) /* the same order in every block */
            total += partials[b];
        *result = total; /* every block: the same value */
    }
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0 && *result != total)
        *result = total; /* never taken: every block stored this value */
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_total, THREADS, 0);
    long long blocks = (long long)sms * per_sm;
    const long long needed = (n + THREADS - 1) / THREADS;
    if (blocks > needed)
        blocks = needed;
    if (blocks < 1)
        blocks = 1;
    void *args[] = {&result, &in, &n, &scratch};
    cudaLaunchCooperativeKernel((void *)grid_total, dim3((unsigned)blocks), dim3(THREADS), args, 0,
                                stream);
}
