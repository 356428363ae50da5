/* Honest, without the lesson: lab 03 with the class as data from a __constant__ table (m and
 * b are affine in f, with a slope and an intercept per class; the step count from a table
 * too), no branch on the class at all, two chains per thread (a template parameter), and no
 * regrouping. Correct, and too slow: the chains differ in length, so a warp runs until its
 * longest lane's chain ends (2048 steps in nearly every warp, where its elements need 960 on
 * average). The mark must fail it, with the speed hint and no blame.
 * lab: divergence
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=FAIL
 * expect: no-accusation */
#include "divergence.h"

/* Per class: m = m0 + f * ms, b = b0 + f * bs (each product by a power of two or 0, +-1: exact). */
__constant__ float4 k_rule[4] = {
    {1.0f - 0x1p-8f, 0x1p-9f, 0.0f, 1.0f},
    {1.0f - 0x1p-9f, 0x1p-9f, 1.0f, -1.0f},
    {1.0f, 0x1p-9f, 0.0f, 0.5f},
    {1.0f + 0x1p-9f, -0x1p-9f, 0.25f, 0.0f},
};
__constant__ int k_steps[4] = {DIVERGENCE_STEPS_0, DIVERGENCE_STEPS_1, DIVERGENCE_STEPS_2,
                               DIVERGENCE_STEPS_3};

template <int PER_THREAD>
__global__ void chains(float *out, const float *in, int n)
{
    const int first = (blockIdx.x * blockDim.x) * PER_THREAD + threadIdx.x;
    float y[PER_THREAD], m[PER_THREAD], b[PER_THREAD];
    int steps[PER_THREAD], longest = 0;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const int i = first + k * blockDim.x;
        const float x = i < n ? in[i] : 0.0f;
        const int c = (int)x;
        const float f = x - (float)c;
        const float4 r = k_rule[c & 3];
        m[k] = fmaf(f, r.y, r.x);
        b[k] = fmaf(f, r.w, r.z);
        y[k] = f;
        steps[k] = k_steps[c & 3];
        longest = steps[k] > longest ? steps[k] : longest;
    }
    for (int step = 0; step < longest; step++)
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (step < steps[k]) /* a chain that has ended keeps its value */
                y[k] = fmaf(y[k], m[k], b[k]);
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const int i = first + k * blockDim.x;
        if (i < n)
            out[i] = y[k];
    }
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    constexpr int kPer = 2, kThreads = 256;
    const int blocks = (n + kThreads * kPer - 1) / (kThreads * kPer);
    chains<kPer><<<blocks, kThreads, 0, stream>>>(out, in, n);
}
