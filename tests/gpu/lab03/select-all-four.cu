/* Lab 03 candidate: no divergence at all, by doing every class's work in every lane.
 *
 * Each thread runs all four chains, each for its class's step count (the shorter ones stop
 * early, in loops every lane runs alike), and keeps the one of its class: no lane is ever
 * masked off by a branch on the class, and the warp still issues 3840 steps, as the
 * skeleton's divergent warps do. It shows that removing the divergence is not the goal (the
 * useful work per issued instruction is), and should stay near the skeleton, far below any
 * candidate pass mark. */
#include "divergence.h"

namespace {

#define THREADS 256

__global__ void select_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    const int c = (int)x;
    const float f = x - (float)c;
    const float m0 = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f), m1 = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f),
                m2 = fmaf(f, 0x1p-9f, 1.0f), m3 = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
    const float b1 = 1.0f - f, b2 = 0.5f * f;
    float y0 = f, y1 = f, y2 = f, y3 = f;
    int k = 0;
    for (; k < DIVERGENCE_STEPS_0; k++) { /* four independent chains, every lane */
        y0 = fmaf(y0, m0, f);
        y1 = fmaf(y1, m1, b1);
        y2 = fmaf(y2, m2, b2);
        y3 = fmaf(y3, m3, 0.25f);
    }
    for (; k < DIVERGENCE_STEPS_1; k++) { /* class 0's chain has ended */
        y1 = fmaf(y1, m1, b1);
        y2 = fmaf(y2, m2, b2);
        y3 = fmaf(y3, m3, 0.25f);
    }
    for (; k < DIVERGENCE_STEPS_2; k++) {
        y2 = fmaf(y2, m2, b2);
        y3 = fmaf(y3, m3, 0.25f);
    }
    for (; k < DIVERGENCE_STEPS_3; k++)
        y3 = fmaf(y3, m3, 0.25f);
    out[i] = c == 0 ? y0 : c == 1 ? y1 : c == 2 ? y2 : y3;
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    select_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, n);
}
