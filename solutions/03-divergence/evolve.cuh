/* Lab 03: the contract's four update rules, each its own chain of dependent FMAs of its own
 * length (grader/labs/03-divergence/divergence.h), as the skeleton writes them: different code
 * per class. Shared by the reference (divergence.cu) and ladder rungs 3 and 4 (steps/), which
 * differ only in which elements they hand to a warp. */
#ifndef LAB03_EVOLVE_CUH
#define LAB03_EVOLVE_CUH

#include "divergence.h"

__device__ __forceinline__ float evolve_class0(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_0; k++)
        y = fmaf(y, m, f);
    return y;
}

__device__ __forceinline__ float evolve_class1(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_1; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ __forceinline__ float evolve_class2(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_2; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ __forceinline__ float evolve_class3(float f)
{
    const float m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_3; k++)
        y = fmaf(y, m, 0.25f);
    return y;
}

/* The branch is still here; what changed is that c is the same in all 32 lanes of the warp
 * that reaches it, so the warp takes one path and skips the other three entirely. */
__device__ __forceinline__ float evolve(int c, float f)
{
    if (c == 0)
        return evolve_class0(f);
    if (c == 1)
        return evolve_class1(f);
    if (c == 2)
        return evolve_class2(f);
    return evolve_class3(f);
}

#endif
