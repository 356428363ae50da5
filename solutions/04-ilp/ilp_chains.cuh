/* ilp_chains.cuh - lab 04's arithmetic kernel for ladder rungs 1 to 5, written once: CHAINS
 * elements per thread (i, i + S, ...; S = all threads of the grid), their chains advanced side
 * by side, so the CHAINS FMAs of one step are independent; and the entry point ilp_arith that
 * launches it. A rung defines CHAINS (1, 2, 4, 8) before it includes this file. */
#ifndef CHAINS
#error "define CHAINS (chains a thread advances side by side) before including ilp_chains.cuh"
#endif

#include "ilp.h"
#include "check.h"

namespace {

__global__ void chains_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int S = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n; base += CHAINS * S) {
        float x[CHAINS], y[CHAINS];
#pragma unroll
        for (int j = 0; j < CHAINS; j++) /* past the end: a dummy chain, never stored */
            x[j] = y[j] = base + j * S < n ? in[base + j * S] : 1.0f;
#pragma unroll 64
        for (int k = 0; k < ILP_STEPS; k++)
#pragma unroll
            for (int j = 0; j < CHAINS; j++)
                y[j] = fmaf(y[j], x[j], ILP_C);
#pragma unroll
        for (int j = 0; j < CHAINS; j++)
            if (base + j * S < n)
                out[base + j * S] = y[j];
    }
}

} /* namespace */

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    chains_kernel<<<blocks, threads, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
