/* Honest: lab 04 in another style: the independent work per thread is a template parameter,
 * the loads go through a small struct of float4 registers, and both launches use
 * cudaLaunchKernel with the grader's blocks and threads (one kernel, the fixed shape, no other
 * work), not <<<>>>.
 * lab: ilp
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "ilp.h"

template <int N>
struct quad_batch {
    float4 v[N];
};

template <int N>
__global__ void scale_batched(float *out, const float *in, float a, int n)
{
    const int stride = gridDim.x * blockDim.x;
    const int n4 = n / 4;
    const float4 *in4 = (const float4 *)in;
    float4 *out4 = (float4 *)out;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (N - 1) * stride < n4; i += N * stride) {
        quad_batch<N> q;
#pragma unroll
        for (int k = 0; k < N; k++) /* N loads in flight before any is used */
            q.v[k] = in4[i + k * stride];
#pragma unroll
        for (int k = 0; k < N; k++) {
            float4 r = q.v[k];
            r.x *= a, r.y *= a, r.z *= a, r.w *= a;
            out4[i + k * stride] = r;
        }
    }
    for (; i < n4; i += stride) {
        float4 r = in4[i];
        r.x *= a, r.y *= a, r.z *= a, r.w *= a;
        out4[i] = r;
    }
    const int tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n)
        out[tail] = in[tail] * a;
}

template <int N>
__global__ void chains_batched(float *out, const float *in, int n)
{
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n; base += N * stride) {
        float x[N], y[N];
#pragma unroll
        for (int k = 0; k < N; k++) {
            const int i = base + k * stride;
            x[k] = i < n ? in[i] : 0.0f;
            y[k] = x[k];
        }
        for (int s = 0; s < ILP_STEPS; s++)
#pragma unroll
            for (int k = 0; k < N; k++) /* N independent chains interleaved */
                y[k] = fmaf(y[k], x[k], ILP_C);
#pragma unroll
        for (int k = 0; k < N; k++)
            if (base + k * stride < n)
                out[base + k * stride] = y[k];
    }
}

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    void *args[] = {&out, &in, &a, &n};
    cudaLaunchKernel((const void *)scale_batched<8>, dim3(blocks), dim3(threads), args, 0, stream);
}

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    void *args[] = {&out, &in, &n};
    cudaLaunchKernel((const void *)chains_batched<4>, dim3(blocks), dim3(threads), args, 0, stream);
}
