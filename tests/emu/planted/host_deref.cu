/*
 * host_deref.cu -- planted bug: host code reads a result straight through
 * the device pointer instead of copying it back with cudaMemcpy. A GPU run
 * crashes with a segmentation fault and no word of why; the emulator names
 * the line and the allocation.
 *
 * Build with -DFIXED for the correct version. Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "check.h"

__global__ void sum_of_squares(const int *in, int n, int *out)
{
    int s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += in[i] * in[i];
    atomicAdd(out, s);
}

int main()
{
    const int n = 100;
    int in[n], total = 0, expect = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = i;
        expect += i * i;
    }
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof in));
    CHECK(cudaMalloc(&dout, sizeof(int)));
    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, sizeof(int)));
    sum_of_squares<<<1, 32>>>(din, n, dout);
    CHECK(cudaDeviceSynchronize());
#ifdef FIXED
    CHECK(cudaMemcpy(&total, dout, sizeof(int), cudaMemcpyDeviceToHost));
#else
    total = *dout;
#endif
    if (total != expect)
        printf("RESULT: wrong: %d, expected %d\n", total, expect);
    else
        printf("RESULT: correct\n");
    return total != expect ? 1 : 0;
}
