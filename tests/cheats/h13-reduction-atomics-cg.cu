/* Honest: lab 07 in another style: the result cleared with cudaMemsetAsync and every block's
 * partial sum added to it with a float atomicAdd (blocks finish in any order, so the sum's
 * rounding differs from run to run, within the bound), cooperative groups' tiles and
 * cg::reduce for the warp's sum, float4 loads in a grid-stride loop. The scratch is unused.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "reduction.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define THREADS 512

__global__ void __launch_bounds__(THREADS) sum_atomic(float *result, const float *in, long long n)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float warp_sums[THREADS / 32];
    const long long n4 = n / 4;
    const long long stride = (long long)gridDim.x * THREADS;
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n4; i += stride) {
        const float4 v = ((const float4 *)in)[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    const long long tail = 4 * n4 + blockIdx.x * (long long)THREADS + threadIdx.x;
    if (tail < n)
        acc += in[tail];
    acc = cg::reduce(warp, acc, cg::plus<float>());
    if (warp.thread_rank() == 0)
        warp_sums[warp.meta_group_rank()] = acc;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float s = warp.thread_rank() < THREADS / 32 ? warp_sums[warp.thread_rank()] : 0.0f;
        s = cg::reduce(warp, s, cg::plus<float>());
        if (warp.thread_rank() == 0)
            atomicAdd(result, s);
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_atomic, THREADS, 0);
    long long blocks = (long long)sms * per_sm;
    const long long needed = (n / 4 + THREADS - 1) / THREADS + 1;
    if (blocks > needed)
        blocks = needed;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    sum_atomic<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n);
}
