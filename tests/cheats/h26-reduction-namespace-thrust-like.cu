/* Honest: lab 07 whose helpers live in a namespace of the student's own called thrust_like
 * (thrust_like::plus, thrust_like::reduce_kernel, thrust_like::cub_style::warp_sum), a functor
 * struct called cubic_sum and a host helper cublas_free_launch: every word of the lab's
 * forbidden libraries in names the student defines, nothing of theirs used. Two passes: a
 * partial sum per block into the scratch (float4 loads in a grid-stride loop), then one
 * block adds the partials.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"

#define THREADS 256

namespace thrust_like {
struct plus {
    __device__ float operator()(float a, float b) const { return a + b; }
};
namespace cub_style {
template <typename Op> __device__ float warp_sum(float v, Op op)
{
    for (int o = 16; o > 0; o /= 2)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
} // namespace cub_style

template <typename Op>
__global__ void __launch_bounds__(THREADS) reduce_kernel(const float *in, long long n, float *out, Op op)
{
    __shared__ float warps[THREADS / 32];
    float v = 0.0f;
    const long long n4 = n / 4, stride = (long long)gridDim.x * THREADS;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n4; i += stride) {
        const float4 x = reinterpret_cast<const float4 *>(in)[i];
        v = op(v, op(op(x.x, x.y), op(x.z, x.w)));
    }
    const long long tail = 4 * n4 + blockIdx.x * (long long)THREADS + threadIdx.x;
    if (tail < n)
        v = op(v, in[tail]);
    v = cub_style::warp_sum(v, op);
    if (threadIdx.x % 32 == 0)
        warps[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < THREADS / 32 ? warps[threadIdx.x] : 0.0f;
        v = cub_style::warp_sum(v, op);
        if (threadIdx.x == 0)
            out[blockIdx.x] = v;
    }
}
} // namespace thrust_like

struct cubic_sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};

static unsigned cublas_free_launch(long long n, long long room)
{
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long long blocks = 8LL * sms, needed = (n / 4 + THREADS - 1) / THREADS + 1;
    if (blocks > needed)
        blocks = needed;
    if (blocks > room)
        blocks = room;
    return (unsigned)(blocks < 1 ? 1 : blocks);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    const unsigned blocks = cublas_free_launch(n, reduction_scratch_floats(n));
    thrust_like::reduce_kernel<<<blocks, THREADS, 0, stream>>>(in, n, scratch, thrust_like::plus());
    thrust_like::reduce_kernel<<<1, THREADS, 0, stream>>>(scratch, blocks, result, cubic_sum());
}
