/*
 * missing_sync.cu -- planted bug: a thread reads its neighbour's shared
 * memory write with no __syncthreads() in between.
 *
 * Each block rotates its 128 values by one place through shared memory.
 * Build with -DFIXED for the correct version. Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

constexpr int BLOCK = 128;

__global__ void rotate(const int *in, int *out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = in[i];
#ifdef FIXED
    __syncthreads();
#endif
    out[i] = s[(t + 1) % BLOCK];
}

int main()
{
    const int n = 4 * BLOCK;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i)
        in[i] = 3 * i + 1;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    rotate<<<n / BLOCK, BLOCK>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += out[i] != in[i / BLOCK * BLOCK + (i % BLOCK + 1) % BLOCK];
    if (wrong)
        printf("RESULT: wrong: %d of %d elements\n", wrong, n);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
