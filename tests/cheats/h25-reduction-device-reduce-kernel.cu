/* Honest: lab 07 named as NVIDIA's blog post on shuffle reductions names it ("Faster Parallel
 * Reductions on Kepler"): warpReduceSum, blockReduceSum and a kernel DeviceReduceKernel at
 * global scope, a grid-stride loop over float4, one atomicAdd per block into the cleared
 * result. The names are the student's own: nothing of CUB is used.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"

#define THREADS 512

__inline__ __device__ float warpReduceSum(float val)
{
    for (int offset = 16; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffffu, val, offset);
    return val;
}

__inline__ __device__ float blockReduceSum(float val)
{
    __shared__ float shared[32];
    const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    val = warpReduceSum(val);
    if (lane == 0)
        shared[wid] = val;
    __syncthreads();
    val = threadIdx.x < blockDim.x / 32 ? shared[lane] : 0.0f;
    if (wid == 0)
        val = warpReduceSum(val);
    return val;
}

__global__ void __launch_bounds__(THREADS) DeviceReduceKernel(const float *in, float *out, long long n)
{
    float sum = 0.0f;
    const long long n4 = n / 4, stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float4 v = reinterpret_cast<const float4 *>(in)[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    const long long tail = 4 * n4 + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (tail < n)
        sum += in[tail];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    int sms = 1, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, DeviceReduceKernel, THREADS, 0);
    long long blocks = (long long)sms * per_sm;
    const long long needed = (n / 4 + THREADS - 1) / THREADS + 1;
    if (blocks > needed)
        blocks = needed;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    DeviceReduceKernel<<<(unsigned)blocks, THREADS, 0, stream>>>(in, result, n);
}
