/*
 * half_barrier.cu -- planted bug: a __syncthreads() inside a branch that
 * only some threads of the block take (a tree reduction whose barrier moved
 * into the if).
 *
 * Build with -DFIXED for the correct version. Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

constexpr int BLOCK = 128;

__global__ void block_sum(const int *in, int *out)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
#ifdef FIXED
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
#else
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
#endif
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

int main()
{
    const int blocks = 4, n = blocks * BLOCK;
    std::vector<int> in(n), out(blocks);
    for (int i = 0; i < n; ++i)
        in[i] = i % 10;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    block_sum<<<blocks, BLOCK>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
        int expect = 0;
        for (int t = 0; t < BLOCK; ++t)
            expect += in[b * BLOCK + t];
        wrong += out[b] != expect;
    }
    if (wrong)
        printf("RESULT: wrong: %d of %d block sums\n", wrong, blocks);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
