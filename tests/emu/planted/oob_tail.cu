/*
 * oob_tail.cu -- planted bug: the last block writes past the end of the
 * output, because the kernel has no bounds check and n (1000) is no multiple
 * of the block size (256).
 *
 * Build with -DFIXED for the correct version. Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2). On a GPU the
 * stray writes land in the allocation's slack and go unnoticed.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void ramp(float *out, float step, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef FIXED
    if (i < n)
#endif
        out[i] = step * (float)i;
}

int main()
{
    const int n = 1000, block = 256;
    std::vector<float> out(n);
    float *dout;
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    ramp<<<(n + block - 1) / block, block>>>(dout, 0.5f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += out[i] != 0.5f * (float)i;
    if (wrong)
        printf("RESULT: wrong: %d of %d elements\n", wrong, n);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
