/*
 * uninit_output.cu -- planted bug: the kernel accumulates into an output
 * that nobody initialised (out[i] += ...) on a fresh cudaMalloc allocation.
 *
 * Build with -DFIXED for the correct version (cudaMemset first). Standalone:
 * builds with nvcc for a GPU and through the CPU emulator; prints
 * "RESULT: correct" (exit 0), "RESULT: wrong ..." (exit 1), or a CUDA error
 * (exit 2). A GPU often hands out zeroed memory, so it may pass there by luck.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void add_into(float *out, const float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += a[i];
}

int main()
{
    const int n = 1000, block = 128;
    std::vector<float> a(n), out(n);
    for (int i = 0; i < n; ++i)
        a[i] = (float)(i % 17);
    float *da, *dout;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
#ifdef FIXED
    CHECK(cudaMemset(dout, 0, n * sizeof(float)));
#endif
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    add_into<<<(n + block - 1) / block, block>>>(dout, da, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += out[i] != a[i];
    if (wrong)
        printf("RESULT: wrong: %d of %d elements\n", wrong, n);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
