/* attributes-probe.cu - what cudaFuncGetAttributes and the occupancy calls answer for a few
 * kernels of known shapes (few registers, many, __launch_bounds__, static shared memory, a
 * local array, a template, a __constant__ table), before any launch. Built for a GPU (nvcc
 * -arch=sm_90) and for the CPU emulator (common/emu/emu-nvcc, which then asks nvcc for the
 * kernels' figures), the two printouts must be the same line for line on a CC 9.0 GPU:
 *   nvcc -O3 -arch=sm_90 tests/gpu/attributes-probe.cu -o probe && ./probe >gpu.txt
 *   common/emu/emu-nvcc tests/gpu/attributes-probe.cu -o probe-emu && ./probe-emu >emu.txt
 *   diff gpu.txt emu.txt
 * (tests/gpu/run-all.sh attributes does both on a GPU machine.) */
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float table[256];

__global__ void few_registers(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;
}

/* 48 independent accumulators, each kept in a register across the loop */
__global__ void many_registers(float *out, const float *in, int n)
{
    float acc[48];
#pragma unroll
    for (int k = 0; k < 48; k++)
        acc[k] = in[(threadIdx.x + k) % n];
    for (int it = 0; it < n; it++)
#pragma unroll
        for (int k = 0; k < 48; k++)
            acc[k] = fmaf(acc[k], acc[(k + 7) % 48], in[(it + k) % n]);
    float s = 0;
#pragma unroll
    for (int k = 0; k < 48; k++)
        s += acc[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void __launch_bounds__(256, 4) bounded(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + table[i & 255];
}

__global__ void static_shared(float *out, const float *in, int n)
{
    __shared__ float tile[64][65];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x & 63][threadIdx.x >> 6] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[(threadIdx.x + 1) & 63][threadIdx.x >> 6];
}

__global__ void local_array(float *out, const float *in, int n, int pick)
{
    float scratch[64];
    for (int k = 0; k < 64; k++)
        scratch[k] = in[(threadIdx.x + k) % n];
    out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[pick & 63];
}

template <int K> __global__ void templated(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
#pragma unroll
    for (int k = 0; k < K; k++)
        v = fmaf(v, 1.0001f, 0.5f);
    if (i < n)
        out[i] = v;
}

template <typename F> static void report(const char *name, F kernel)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
        printf("%-16s cudaFuncGetAttributes failed\n", name);
        return;
    }
    printf("%-16s regs %3d  maxThreadsPerBlock %4d  static shared %6zu  local %5zu  const %5zu\n",
           name, a.numRegs, a.maxThreadsPerBlock, a.sharedSizeBytes, a.localSizeBytes,
           a.constSizeBytes);
    printf("%-16s blocks per SM at", name);
    for (int threads = 64; threads <= a.maxThreadsPerBlock; threads *= 2) {
        int blocks = -1;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0);
        printf(" %d:%d", threads, blocks);
    }
    int min_grid = 0, block = 0;
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, 0);
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    printf("; suggested block %d (a grid of %d blocks per SM)\n", block, sms ? min_grid / sms : 0);
}

int main()
{
    report("few_registers", few_registers);
    report("many_registers", many_registers);
    report("bounded", bounded);
    report("static_shared", static_shared);
    report("local_array", local_array);
    report("templated<64>", templated<64>);
    return 0;
}
