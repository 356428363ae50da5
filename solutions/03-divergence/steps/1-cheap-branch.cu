/* Lab 03, rung 1: a cheap branch. if/else picks the class's (m, b) and step count; one loop
 * runs the chain.
 *
 * Changed from the skeleton: the branch on the class no longer chooses between four loops; it
 * chooses two constants and a count (one or two instructions per side), and then every lane
 * runs the same loop. Why: a warp whose lanes disagree on a branch runs each side in turn with
 * the other lanes masked off. In the skeleton each side is a whole chain, so a warp holding
 * all four classes runs four chains, one after another: 256 + 512 + 1024 + 2048 = 3840 steps.
 * Here the divergent part is a handful of instructions. What is left is the loop's trip count,
 * which differs per lane: a lane whose chain has ended idles (masked off) until the warp's
 * longest chain is done, so nearly every warp runs 2048 steps where its elements need 960 on
 * average. A loop whose count depends on the lane diverges too; the cure for that is the
 * reference's: regroup the data so each warp holds one class (rung 3). */
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
    int steps;
    if (c == 0) { /* divergent, but only for these few instructions */
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
        b = f;
        steps = DIVERGENCE_STEPS_0;
    } else if (c == 1) {
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f);
        b = 1.0f - f;
        steps = DIVERGENCE_STEPS_1;
    } else if (c == 2) {
        m = fmaf(f, 0x1p-9f, 1.0f);
        b = 0.5f * f;
        steps = DIVERGENCE_STEPS_2;
    } else {
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
        b = 0.25f;
        steps = DIVERGENCE_STEPS_3;
    }
    float y = f;
    for (int k = 0; k < steps; k++) /* the same instructions, until the lane's count ends */
        y = fmaf(y, m, b);
    out[i] = y;
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    evolve_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
