/* Lab 03, rung 1: a cheap branch. if/else picks the class's (m, b); one loop runs the chain.
 *
 * Changed from the skeleton: the branch on the class no longer chooses between four loops of
 * 1024 FMAs each; it chooses two constants (one or two instructions per side), and then every
 * lane runs the same loop. Why: a warp whose lanes disagree on a branch runs each side in
 * turn with the other lanes masked off. In the skeleton each side is a whole chain, so a warp
 * holding all four classes runs four chains, one after another. Here the divergent part is a
 * handful of instructions; the loop, where the time goes, is shared by all 32 lanes.
 * This works because the four rules share a shape (y = y * m + b). When the paths really
 * differ, the cure is the reference's: regroup the data so each warp holds one class. */
#include "divergence.h"
#include "check.h"

namespace {

#define THREADS 256

__global__ void evolve_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    const int c = (int)x;
    const float f = x - (float)c;
    float m, b;
    if (c == 0) { /* divergent, but only for these few instructions */
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
        b = f;
    } else if (c == 1) {
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f);
        b = 1.0f - f;
    } else if (c == 2) {
        m = fmaf(f, 0x1p-9f, 1.0f);
        b = 0.5f * f;
    } else {
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
        b = 0.25f;
    }
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS; k++) /* every lane: the same instructions */
        y = fmaf(y, m, b);
    out[i] = y;
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    evolve_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
