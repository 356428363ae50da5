/*
 * shfl_width.cu -- planted bug: a shuffle with the wrong width. To sum a
 * block of 64 threads the kernel passes blockDim.x as the width, but a
 * shuffle never crosses a warp: the width must be a power of 2 up to 32.
 *
 * Build with -DFIXED for the correct version (a warp sum, then shared memory
 * across the two warps). Standalone: builds with nvcc for a GPU and through
 * the CPU emulator; prints "RESULT: correct" (exit 0), "RESULT: wrong ..."
 * (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

constexpr unsigned FULL = 0xffffffffu;

__global__ void block_sum(const int *in, int *out)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
#ifdef FIXED
    __shared__ int warp_sums[2];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL, v, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = warp_sums[0] + warp_sums[1];
#else
    for (int offset = blockDim.x / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL, v, offset, blockDim.x);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
#endif
}

int main()
{
    const int blocks = 3, block = 64, n = blocks * block;
    std::vector<int> in(n), out(blocks);
    for (int i = 0; i < n; ++i)
        in[i] = i % 5 + 1;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    block_sum<<<blocks, block>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
        int expect = 0;
        for (int t = 0; t < block; ++t)
            expect += in[b * block + t];
        wrong += out[b] != expect;
    }
    if (wrong)
        printf("RESULT: wrong: %d of %d block sums\n", wrong, blocks);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
