/*
 * warp_sync_reduce.cu -- planted bug: the classic unrolled reduction whose
 * last warp runs "warp-synchronously": volatile shared memory and no
 * __syncwarp(), counting on the 32 lanes running each statement together.
 * Since Volta a warp's lanes are scheduled independently, so lane 0 may read
 * sdata[1] before lane 1 has added into it: a race on shared memory, which
 * compute-sanitizer's racecheck reports. A GPU usually still gets the sum.
 *
 * Build with -DFIXED for the correct version (each step reads into a
 * register, __syncwarp(), writes, __syncwarp()). Standalone: builds with nvcc
 * for a GPU and through the CPU emulator; prints "RESULT: correct" (exit 0),
 * "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

template <unsigned blockSize>
__device__ void warp_reduce(volatile int *sdata, unsigned tid)
{
#ifdef FIXED
    int v = sdata[tid];
    for (unsigned offset = 32; offset > 0; offset /= 2) {
        if (blockSize >= 2 * offset)
            v += sdata[tid + offset];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
    }
#else
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
    if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
    if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
#endif
}

template <unsigned blockSize>
__global__ void reduce6(const int *in, int *out)
{
    __shared__ int sdata[blockSize];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockSize * 2) + tid;
    sdata[tid] = in[i] + in[i + blockSize];
    __syncthreads();
    if (blockSize >= 256) {
        if (tid < 128)
            sdata[tid] += sdata[tid + 128];
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64)
            sdata[tid] += sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32)
        warp_reduce<blockSize>(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

int main()
{
    const int blocks = 4, block = 256, n = blocks * block * 2;
    std::vector<int> in(n), out(blocks);
    for (int i = 0; i < n; ++i)
        in[i] = i % 13;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reduce6<block><<<blocks, block>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
        int expect = 0;
        for (int t = 0; t < 2 * block; ++t)
            expect += in[b * 2 * block + t];
        wrong += out[b] != expect;
    }
    if (wrong)
        printf("RESULT: wrong: %d of %d block sums\n", wrong, blocks);
    else
        printf("RESULT: correct\n");
    return wrong ? 1 : 0;
}
