/* Cheat: lab 03 with the longest chain, class 3's, one step short (2047 of 2048 steps), the
 * smallest cut of the work there is. The check's bound is the longest chain's, (2 x 2048 + 8)
 * x 2^-24, about 2.4e-4 relative; one step of class 3 moves every result by 4.8e-4 or more
 * (grader/labs/03-divergence/problem.cu, verify), so every case with a class-3 element fails.
 * lab: divergence
 * where: emu gpu
 * expect: correct=FAIL */
#include "divergence.h"

__global__ void trimmed(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    const int c = (int)x;
    const float f = x - (float)c;
    float m, b;
    int steps;
    if (c == 0)
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f), b = f, steps = DIVERGENCE_STEPS_0;
    else if (c == 1)
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f, steps = DIVERGENCE_STEPS_1;
    else if (c == 2)
        m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f, steps = DIVERGENCE_STEPS_2;
    else
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f), b = 0.25f, steps = DIVERGENCE_STEPS_3 - 1;
    float y = f;
    for (int k = 0; k < steps; k++)
        y = fmaf(y, m, b);
    out[i] = y;
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    trimmed<<<(n + 255) / 256, 256, 0, stream>>>(out, in, n);
}
