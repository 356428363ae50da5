/* Lab 03, rung 2: no branch at all. The class indexes a table of the rules' constants.
 *
 * Changed from rung 1: the if/else is gone; m and b come from four small tables in constant
 * memory, indexed by the class: m = f * M_SLOPE[c] + M_BASE[c], b = f * B_SLOPE[c] + B_BASE[c]
 * (every product and sum is exact, so the results are the contract's bits). Why: no lane ever
 * waits for another, by construction. It measures the same as rung 1, which is the lesson: a
 * branch whose sides are short costs almost nothing; what the skeleton paid for was running
 * four long sides one after the other. Both still run one chain per thread, 8 warps per
 * scheduler at most, and lose to the reference, which also regroups and gives each thread
 * more independent work. So this kernel is a branch-free baseline, not a speed limit: the
 * limit is the FP32 FMA peak. */
#include "divergence.h"
#include "check.h"

namespace {

#define THREADS 256

__constant__ float M_SLOPE[4] = {0x1p-9f, 0x1p-9f, 0x1p-9f, -0x1p-9f};
__constant__ float M_BASE[4] = {1.0f - 0x1p-8f, 1.0f - 0x1p-9f, 1.0f, 1.0f + 0x1p-9f};
__constant__ float B_SLOPE[4] = {1.0f, -1.0f, 0.5f, 0.0f};
__constant__ float B_BASE[4] = {0.0f, 1.0f, 0.0f, 0.25f};

__global__ void evolve_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    const int c = (int)x;
    const float f = x - (float)c;
    /* A few constant-cache reads (lanes of different classes read different words: the
     * constant cache serializes those, a few cycles), then identical instructions for all. */
    const float m = fmaf(f, M_SLOPE[c], M_BASE[c]);
    const float b = fmaf(f, B_SLOPE[c], B_BASE[c]);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS; k++)
        y = fmaf(y, m, b);
    out[i] = y;
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    evolve_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
