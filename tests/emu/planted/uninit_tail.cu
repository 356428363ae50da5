/*
 * uninit_tail.cu -- planted bug: the grid is n / 256 blocks, rounded down,
 * so the last 232 outputs are never written and the host reads whatever the
 * allocation held.
 *
 * Build with -DFIXED for the correct version (round the grid up).
 * Standalone: builds with nvcc for a GPU and through the CPU emulator;
 * prints "RESULT: correct" (exit 0), "RESULT: wrong ..." (exit 1), or a
 * CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void twice(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

int main()
{
    const int n = 1000, block = 256;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = (float)(i + 1);
    float *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
#ifdef FIXED
    int blocks = (n + block - 1) / block;
#else
    int blocks = n / block;
#endif
    twice<<<blocks, block>>>(dout, din, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += out[i] != 2.0f * in[i];
    if (wrong)
        printf("RESULT: wrong: %d of %d elements\n", wrong, n);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
