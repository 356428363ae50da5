/*
 * cp_async_early.cu -- planted bug: a thread copies its element into shared
 * memory with cp.async, and the block reads its neighbours' elements after a
 * __syncthreads() that comes before each thread's wait for its own copy: the
 * barrier orders the copies' starts, not their arrival.
 *
 * Each block rotates its 128 values by one place through shared memory.
 * Build with -DFIXED for the correct version (wait, then __syncthreads()).
 * Standalone: builds with nvcc for a GPU (the bug needs sm_80 or later: before
 * that, a plain copy) and through the CPU emulator; prints "RESULT: correct" (exit 0), "RESULT: wrong ..." (exit 1),
 * or a CUDA error (exit 2).
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
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 /* no cp.async: a plain copy, no bug */
    s[t] = in[i];
    __syncthreads();
#else
    unsigned at = (unsigned)__cvta_generic_to_shared(&s[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(at), "l"(in + i));
    asm volatile("cp.async.commit_group;\n" ::);
#ifdef FIXED
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
#else
    __syncthreads();
    asm volatile("cp.async.wait_group 0;\n" ::);
#endif
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
