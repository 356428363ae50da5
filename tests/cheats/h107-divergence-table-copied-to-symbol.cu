/* Honest: lab 03 with the rules as data in __constant__ memory, filled from the host once
 * (cudaMemcpyToSymbol on the first call, a static remembers it), and each thread's rule read
 * by class index: no branch on the class in the chain. Not regrouped, so a warp still runs
 * its longest class's step count; correct, not expected to be fast enough.
 * lab: divergence
 * where: emu gpu
 * expect: all-correct=OK */
#include "divergence.h"

struct Rule {
    float m0, ms, b0, bs; /* m = m0 + f * ms, b = b0 + f * bs */
    int steps;
};
__constant__ Rule c_rules[4];

__global__ void chains_from_table(float *__restrict__ out, const float *__restrict__ in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float x = in[i];
        const int c = (int)x;
        const float f = x - (float)c;
        const Rule r = c_rules[c];
        const float m = r.m0 + f * r.ms, b = r.b0 + f * r.bs;
        float y = f;
        for (int k = 0; k < r.steps; k++)
            y = fmaf(y, m, b);
        out[i] = y;
    }
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    static bool table_ready = false;
    if (!table_ready) {
        const Rule rules[4] = {
            {1.0f - 0x1p-8f, 0x1p-9f, 0.0f, 1.0f, DIVERGENCE_STEPS_0},
            {1.0f - 0x1p-9f, 0x1p-9f, 1.0f, -1.0f, DIVERGENCE_STEPS_1},
            {1.0f, 0x1p-9f, 0.0f, 0.5f, DIVERGENCE_STEPS_2},
            {1.0f + 0x1p-9f, -0x1p-9f, 0.25f, 0.0f, DIVERGENCE_STEPS_3},
        };
        cudaMemcpyToSymbol(c_rules, rules, sizeof rules);
        table_ready = true;
    }
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8)
        blocks = 65535 * 8;
    chains_from_table<<<blocks, threads, 0, stream>>>(out, in, n);
}
