/*
 * global_race.cu -- planted bug: threads count into one global counter with
 * a plain read-modify-write instead of an atomic, so increments are lost.
 *
 * Build with -DFIXED for the correct version (atomicAdd). Standalone: builds
 * with nvcc for a GPU and through the CPU emulator; prints "RESULT: correct"
 * (exit 0), "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void count_positive(const int *in, int n, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) {
#ifdef FIXED
        atomicAdd(count, 1);
#else
        *count = *count + 1;
#endif
    }
}

int main()
{
    const int n = 10000, block = 256;
    std::vector<int> in(n);
    int expect = 0, got = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = i % 3 == 2 ? -1 : 1;
        expect += in[i] > 0;
    }
    int *din, *dcount;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dcount, sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dcount, 0, sizeof(int)));
    count_positive<<<(n + block - 1) / block, block>>>(din, n, dcount);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&got, dcount, sizeof(int), cudaMemcpyDeviceToHost));
    if (got != expect)
        printf("RESULT: wrong: counted %d, expected %d\n", got, expect);
    else
        printf("RESULT: correct\n");
    return got != expect ? 1 : 0;
}
