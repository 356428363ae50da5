/*
 * last_writer.cu -- planted bug: every warp of a block writes its own partial
 * result to one shared word, and one thread then copies that word out. Which
 * warp's value is left depends on which warp writes last: no GPU promises an
 * order, so the output changes from run to run (and from GPU to GPU).
 *
 * Build with -DFIXED for the correct version: every warp writes its partial
 * to a slot of its own, and one thread adds them after a __syncthreads().
 * (Every thread of the fix also writes one value to one flag word: writes of
 * the same value with nothing ordering them are no race.) Standalone: builds
 * with nvcc for a GPU and through the CPU emulator; prints "RESULT: correct"
 * (exit 0), "RESULT: wrong ..." (exit 1), or a CUDA error (exit 2).
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "check.h"

__global__ void warp_sums(const int *in, int *out)
{
    __shared__ int partial[8];
    __shared__ int last;
    __shared__ int seen;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    seen = 1; /* the same value from every thread: allowed */
    if (lane == 0) {
#ifdef FIXED
        partial[warp] = v;
#else
        last = v; /* each warp's own value: the last writer wins */
        partial[warp] = 0;
#endif
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w)
            sum += partial[w];
#ifndef FIXED
        sum += last;
#endif
        out[blockIdx.x] = sum * seen;
    }
}

int main()
{
    const int blocks = 4, block = 256, n = blocks * block;
    int in[n], out[blocks];
    for (int i = 0; i < n; ++i)
        in[i] = i / 32 + 1; /* warp w of the grid holds w + 1 in every lane */
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof in));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    warp_sums<<<blocks, block>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; ++b) {
        int expect = 0;
        for (int i = b * block; i < (b + 1) * block; ++i)
            expect += in[i];
        if (out[b] != expect) {
            if (!wrong)
                printf("RESULT: wrong: block %d summed %d, expected %d\n", b, out[b], expect);
            wrong = 1;
        }
    }
    if (!wrong)
        printf("RESULT: correct\n");
    return wrong;
}
