/*
 * host_array.cu -- planted bug: the kernel is given the host array (the
 * std::vector's data) instead of the device copy made for it. A GPU without
 * access to pageable host memory stops with an illegal address at the next
 * synchronising call; the emulator names the memory, where the host
 * allocated it, and the kernel's line.
 *
 * Build with -DFIXED for the correct version. Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

int main()
{
    const int n = 1000, block = 256;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i)
        x[i] = (float)i;
    float *dx;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
#ifdef FIXED
    scale<<<(n + block - 1) / block, block>>>(dx, 2.0f, n);
#else
    scale<<<(n + block - 1) / block, block>>>(x.data(), 2.0f, n);
#endif
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(x.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += x[i] != 2.0f * (float)i;
    CHECK(cudaFree(dx));
    if (wrong)
        printf("RESULT: wrong: %d of %d elements\n", wrong, n);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
