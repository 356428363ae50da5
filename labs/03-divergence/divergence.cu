/* Lab 03 - warp divergence: YOUR FILE.
 *
 * Task: evolve every element with its class's update rule, for its class's number of dependent
 * steps, 256 to 2048 (contract: grader/labs/03-divergence/divergence.h). Read labs/03-divergence/README.md first.
 *
 * What is yours: everything in this file. Keep the function `divergence` with its signature;
 * add kernels and helpers as you like. What is not: the contract header, the grader, and the
 * rules in it (every element does all its steps). Grade it with `make grade LAB=divergence`.
 *
 * This version is correct but slow: one thread per element, and each thread branches on its
 * own element's class. The classes are mixed at random, so nearly every warp holds all four;
 * a warp issues one path at a time, so it runs all four chains one after the other (256 + 512
 * + 1024 + 2048 steps), with about a quarter of its lanes doing useful work in each. */
#include "divergence.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

#define THREADS 256

/* The four update rules of the contract. Each is a chain of dependent fused multiply-adds,
 * of its own length: different code, which the compiler keeps as four separate loops. */
__device__ float evolve_class0(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_0; k++)
        y = fmaf(y, m, f);
    return y;
}

__device__ float evolve_class1(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_1; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ float evolve_class2(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_2; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ float evolve_class3(float f)
{
    const float m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_3; k++)
        y = fmaf(y, m, 0.25f);
    return y;
}

__global__ void evolve_kernel(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = in[i];
    const int c = (int)x;
    const float f = x - (float)c;
    /* TODO(student): this branch is decided per thread, by the data. Neighbouring threads
     * (one warp) get different classes, so the warp runs every path that any of its lanes
     * needs. Reorganize the work so that the 32 threads of a warp all hold elements of the
     * SAME class when they reach this branch (for example: group a block's elements by
     * class in shared memory, then let each warp take 32 elements of one class). Picking
     * each lane's (m, b, steps) with a short branch and running one shared loop is not
     * enough: the chains differ in length, and a warp's loop runs until its longest lane is
     * done. The results must not change: each element still gets its own class's chain. */
    float y;
    if (c == 0)
        y = evolve_class0(f);
    else if (c == 1)
        y = evolve_class1(f);
    else if (c == 2)
        y = evolve_class2(f);
    else
        y = evolve_class3(f);
    out[i] = y;
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    /* TODO(student): a regrouping kernel will want its own grid (for example a fixed number
     * of blocks, from the device's SM count and the occupancy API, each looping over tiles). */
    const int blocks = (n + THREADS - 1) / THREADS;
    evolve_kernel<<<blocks, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
