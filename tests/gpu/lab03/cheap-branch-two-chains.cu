/* Lab 03 candidate: the cheap branch of rung 1 with two independent chains per thread, and no
 * regrouping.
 *
 * Each thread takes two elements a grid apart, picks each one's (m, b) and step count with the
 * rung's short if/else, and runs both chains in one loop while both last, then the longer one
 * alone: two independent FMAs per step where they overlap, so a thread keeps the FMA pipe
 * busy with half the warps. The reference regroups by class and also gives each thread
 * several chains; this variant has the second without the first, and its warps still run
 * until their longest chains end: the shared part until the warp's longest common count, then
 * each tail loop until the warp's longest tail, one tail after the other: a warp issues the
 * sum of the three loops' longest counts. Timed beside rung 1 and the reference (tests/gpu/lab03-divergence.sh), it shows
 * that independent work is not what the reference's lead over rung 1 is made of: it stays
 * below rung 1 and the pass mark. */
#include "divergence.h"

namespace {

#define THREADS 256

__device__ void rule(float x, float *f, float *m, float *b, int *steps)
{
    const int c = (int)x;
    *f = x - (float)c;
    if (c == 0) { /* divergent, but only for these few instructions */
        *m = fmaf(*f, 0x1p-9f, 1.0f - 0x1p-8f);
        *b = *f;
        *steps = DIVERGENCE_STEPS_0;
    } else if (c == 1) {
        *m = fmaf(*f, 0x1p-9f, 1.0f - 0x1p-9f);
        *b = 1.0f - *f;
        *steps = DIVERGENCE_STEPS_1;
    } else if (c == 2) {
        *m = fmaf(*f, 0x1p-9f, 1.0f);
        *b = 0.5f * *f;
        *steps = DIVERGENCE_STEPS_2;
    } else {
        *m = fmaf(-*f, 0x1p-9f, 1.0f + 0x1p-9f);
        *b = 0.25f;
        *steps = DIVERGENCE_STEPS_3;
    }
}

__global__ void two_chains_kernel(float *__restrict__ out, const float *__restrict__ in, int n, int half)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= half)
        return;
    const int j = i + half; /* the second element: a grid apart, coalesced like the first */
    const int two = j < n;
    float f0, m0, b0, f1 = 0.0f, m1 = 0.0f, b1 = 0.0f;
    int k0, k1 = 0;
    rule(in[i], &f0, &m0, &b0, &k0);
    if (two)
        rule(in[j], &f1, &m1, &b1, &k1);
    float y0 = f0, y1 = f1;
    const int both = k0 < k1 ? k0 : k1;
    for (int k = 0; k < both; k++) { /* two independent chains */
        y0 = fmaf(y0, m0, b0);
        y1 = fmaf(y1, m1, b1);
    }
    for (int k = both; k < k0; k++) /* the longer one alone */
        y0 = fmaf(y0, m0, b0);
    for (int k = both; k < k1; k++)
        y1 = fmaf(y1, m1, b1);
    out[i] = y0;
    if (two)
        out[j] = y1;
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    const int half = (n + 1) / 2;
    two_chains_kernel<<<(half + THREADS - 1) / THREADS, THREADS, 0, stream>>>(out, in, n, half);
}
