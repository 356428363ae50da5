/* Honest: lab 07 with class templates of the student's own named as CUB's are
 * (BlockReduce<THREADS> with its TempStorage and Sum, WarpReduce), at global scope: the names
 * are CUB's, the code is the student's. The last block to finish (a ticket counter in the
 * scratch, zero when the call starts) adds the partials.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"

#define THREADS 512

struct WarpReduce {
    __device__ static float Sum(float v)
    {
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
        return v;
    }
};

template <int BLOCK_THREADS> struct BlockReduce {
    struct TempStorage {
        float warps[BLOCK_THREADS / 32];
    };
    TempStorage &t;
    __device__ explicit BlockReduce(TempStorage &storage) : t(storage) {}
    /* the block's sum, valid in thread 0 */
    __device__ float Sum(float v)
    {
        v = WarpReduce::Sum(v);
        if (threadIdx.x % 32 == 0)
            t.warps[threadIdx.x / 32] = v;
        __syncthreads();
        v = threadIdx.x < BLOCK_THREADS / 32 ? t.warps[threadIdx.x] : 0.0f;
        return threadIdx.x < 32 ? WarpReduce::Sum(v) : 0.0f;
    }
};

__global__ void __launch_bounds__(THREADS) DeviceSum(float *result, const float *in, long long n,
                                                      float *partials, unsigned *ticket)
{
    __shared__ BlockReduce<THREADS>::TempStorage temp;
    __shared__ bool last;
    float v = 0.0f;
    const long long n4 = n / 4, stride = (long long)gridDim.x * THREADS;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n4; i += stride) {
        const float4 x = reinterpret_cast<const float4 *>(in)[i];
        v += (x.x + x.y) + (x.z + x.w);
    }
    const long long tail = 4 * n4 + blockIdx.x * (long long)THREADS + threadIdx.x;
    if (tail < n)
        v += in[tail];
    v = BlockReduce<THREADS>(temp).Sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    float s = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        s += ((volatile float *)partials)[b];
    __syncthreads();
    s = BlockReduce<THREADS>(temp).Sum(s);
    if (threadIdx.x == 0)
        *result = s;
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, DeviceSum, THREADS, 0);
    long long blocks = (long long)sms * per_sm;
    const long long needed = (n / 4 + THREADS - 1) / THREADS + 1;
    const long long room = reduction_scratch_floats(n) - 1; /* the last float holds the ticket */
    if (blocks > needed)
        blocks = needed;
    if (blocks > room)
        blocks = room;
    if (blocks < 1)
        blocks = 1;
    DeviceSum<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n, scratch,
                                                       (unsigned *)(scratch + room));
}
