/* Lab 03, ladder rungs 3 and 4: the contract's four update rules, each its own chain of
 * dependent FMAs of its own length (grader/labs/03-divergence/divergence.h), as the skeleton
 * writes them: different code per class, picked by a switch. The two rungs differ only in
 * which elements they hand to a warp, so they share this. (The reference writes the same
 * rules as four functions, in solutions/03-divergence/divergence.cu.) */
#ifndef LAB03_RUNG_CHAINS_CUH
#define LAB03_RUNG_CHAINS_CUH

#include "divergence.h"

namespace {

__device__ float evolve(int c, float f)
{
    float m, b;
    float y = f;
    switch (c) { /* a warp whose lanes disagree runs several of these; here few do */
    case 0:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
        for (int k = 0; k < DIVERGENCE_STEPS_0; k++)
            y = fmaf(y, m, f);
        return y;
    case 1:
        m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
        for (int k = 0; k < DIVERGENCE_STEPS_1; k++)
            y = fmaf(y, m, b);
        return y;
    case 2:
        m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
        for (int k = 0; k < DIVERGENCE_STEPS_2; k++)
            y = fmaf(y, m, b);
        return y;
    default:
        m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
        for (int k = 0; k < DIVERGENCE_STEPS_3; k++)
            y = fmaf(y, m, 0.25f);
        return y;
    }
}

} /* namespace */

#endif
