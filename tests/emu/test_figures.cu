/*
 * test_figures.cu -- nvcc's figures for a file that asks for them: this file calls
 * cudaFuncGetAttributes, so emu-nvcc compiles it with NVIDIA's nvcc too and hands what ptxas
 * says of each kernel to the runtime (common/emu/rewrite/figures.h). cudaFuncGetAttributes, the
 * occupancy API and the launch then answer with a kernel's own registers, static shared, local
 * and constant memory, before its first launch, as a GPU does. The file includes nothing of the
 * emulator's, so that nvcc builds it; emu_tests.mk defines EMU_TEST_NVCC where it found nvcc,
 * and without it the emulator's own figures are checked (32 registers a thread).
 * test_block.cu checks the same rules with figures written by hand.
 */
#include <cuda_runtime.h>

#include <algorithm>

#include "emu_test.h"

__constant__ float weights[64]; /* the file's __constant__ data: 256 bytes */

/* 64 values live together through eight rounds that mix them: nvcc keeps them in registers
 * (72 a thread with CUDA 13 for sm_90), more than 64 whatever the release. */
__global__ void many_registers(float *out, const float *in, int n)
{
    float r[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        r[i] = in[i * n + threadIdx.x];
#pragma unroll
    for (int k = 0; k < 8; k++)
#pragma unroll
        for (int i = 0; i < 64; i++)
            r[i] = r[i] * r[(i + k) % 64] + r[(i * 3 + k) % 64];
    float s = 0;
#pragma unroll
    for (int i = 0; i < 64; i++)
        s += r[i];
    out[threadIdx.x] = s + weights[threadIdx.x % 64];
}

/* Overloads: each gets its own figures, mapped by its mangled name. */
__global__ void overloaded(float *out) { out[threadIdx.x] = 2.f * out[threadIdx.x]; }
__global__ void overloaded(int *out) { out[threadIdx.x] += 1; }

/* A static kernel (g++ spells its name with an L nvcc leaves out) with a static tile. */
static __global__ void static_tile(float *out)
{
    __shared__ float tile[32][33]; /* 4,224 bytes */
    tile[threadIdx.y][threadIdx.x] = out[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

namespace {

/* In an anonymous namespace (nvcc names it per file, g++ _GLOBAL__N_1), and a template whose
 * __launch_bounds__ only its PTX says before its first launch. */
template <int N>
__global__ void __launch_bounds__(N) bounded(float *out)
{
    out[threadIdx.x] = (float)N;
}

/* An array indexed at run time lives in local memory: its stack frame. */
__global__ void local_array(float *out, const float *in, int j)
{
    float a[256];
    for (int i = 0; i < 256; i++)
        a[i] = in[i];
    out[0] = a[j & 255];
}

/* The most threads a block may have with REGS registers a thread (cuda_occupancy.h): a warp's
 * registers in units of 256, a block's warps rounded up to four within 65,536. */
int threads_allowed(int regs)
{
    const int per_warp = (regs * 32 + 255) / 256 * 256;
    return std::min(1024, 65536 / per_warp / 4 * 4 * 32);
}

/* Blocks of THREADS threads an SM holds by its registers alone: 7 warps of 2,304 registers in
 * each of its four register files of 16,384, for instance. */
int blocks_by_registers(int regs, int threads)
{
    const int per_warp = (regs * 32 + 255) / 256 * 256;
    return 16384 / per_warp * 4 / ((threads + 31) / 32);
}

void test_registers_before_the_first_launch()
{
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, many_registers));
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, many_registers, 256, 0));
#ifdef EMU_TEST_NVCC
    CU_ASSERT(attr.numRegs >= 64);
    CU_ASSERT(attr.maxThreadsPerBlock < 1024);
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, threads_allowed(attr.numRegs));
    CU_ASSERT_EQUAL(attr.constSizeBytes, 256u);
    CU_ASSERT_EQUAL(blocks, std::min(8, blocks_by_registers(attr.numRegs, 256)));
#else
    CU_ASSERT_EQUAL(attr.numRegs, 32);
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, 1024);
    CU_ASSERT_EQUAL(blocks, 8);
#endif
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, many_registers,
                                                            attr.maxThreadsPerBlock + 32, 0));
    CU_ASSERT_EQUAL(blocks, 0);
    int min_grid = 0, block = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, many_registers, 0, 0));
    CU_ASSERT(block > 0 && block <= attr.maxThreadsPerBlock);
    /* A block of 1024 threads is more than its registers allow: refused, as a GPU refuses it;
     * one of the most it may have runs. */
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, 64 * 1024 * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, 1024 * sizeof(float)));
    EXPECT_OK(cudaMemset(in, 0, 64 * 1024 * sizeof(float)));
    if (attr.maxThreadsPerBlock < 1024) {
        StderrCapture cap;
        many_registers<<<1, 1024>>>(out, in, 1024);
        CU_ASSERT(contains(cap.stop(), "registers a thread"));
        CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    }
    many_registers<<<1, attr.maxThreadsPerBlock>>>(out, in, attr.maxThreadsPerBlock);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaFree(in));
    EXPECT_OK(cudaFree(out));
}

/* Each kernel's own figures: overloads apart, a static kernel's tile, an anonymous namespace's
 * template's bounds, a local array's bytes, all before any of them runs. */
void test_each_kernel_its_own()
{
    cudaFuncAttributes light, heavy, tile, bound, local;
    EXPECT_OK(cudaFuncGetAttributes(&light, static_cast<void (*)(int *)>(overloaded)));
    EXPECT_OK(cudaFuncGetAttributes(&heavy, many_registers));
    EXPECT_OK(cudaFuncGetAttributes(&tile, static_tile));
    EXPECT_OK(cudaFuncGetAttributes(&bound, bounded<128>));
    EXPECT_OK(cudaFuncGetAttributes(&local, local_array));
#ifdef EMU_TEST_NVCC
    CU_ASSERT(light.numRegs < 32);
    CU_ASSERT(light.numRegs < heavy.numRegs);
    CU_ASSERT_EQUAL(tile.sharedSizeBytes, 32u * 33 * 4);
    CU_ASSERT_EQUAL(tile.maxDynamicSharedSizeBytes, 48 * 1024 - 32 * 33 * 4);
    CU_ASSERT_EQUAL(bound.maxThreadsPerBlock, 128);
    CU_ASSERT(local.localSizeBytes >= 256 * sizeof(float));
#else
    CU_ASSERT_EQUAL(light.numRegs, 32);
    CU_ASSERT_EQUAL(tile.sharedSizeBytes, 0u); /* known once a block has run */
    CU_ASSERT_EQUAL(bound.maxThreadsPerBlock, 1024); /* a template's: from its first run */
    CU_ASSERT_EQUAL(local.localSizeBytes, 0u);
#endif
    float *d;
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(float)));
    EXPECT_OK(cudaMemset(d, 0, 1024 * sizeof(float)));
    static_tile<<<1, dim3(32, 32)>>>(d);
    bounded<128><<<1, 128>>>(d);
    overloaded<<<1, 32>>>(d);
    overloaded<<<1, 32>>>(reinterpret_cast<int *>(d));
    EXPECT_OK(cudaDeviceSynchronize());
    /* After a run the figures stand: the block's tile, the template's bounds. */
    EXPECT_OK(cudaFuncGetAttributes(&tile, static_tile));
    CU_ASSERT_EQUAL(tile.sharedSizeBytes, 32u * 33 * 4);
    EXPECT_OK(cudaFuncGetAttributes(&bound, bounded<128>));
    CU_ASSERT_EQUAL(bound.maxThreadsPerBlock, 128);
    EXPECT_OK(cudaFree(d));
}

CU_TestInfo tests[] = {
    {"a kernel's registers from nvcc, before its first launch: attributes, occupancy, launch", test_registers_before_the_first_launch},
    {"each kernel its own figures: overloads, static, anonymous namespace, template bounds", test_each_kernel_its_own},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_figures_suite() { add_suite("nvcc's figures of a file that asks", tests); }
