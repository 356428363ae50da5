/*
 * test_block.cu -- what a block shares: __syncthreads() and its variants,
 * static and dynamic shared memory (one fresh allocation per block), and the
 * errors for barriers not every thread reaches.
 */
#include <cuda_runtime.h>
#include <cuda_emu/schedule.h>
#include <cuda_emu/testing.h>

#include <vector>

#include "emu_test.h"

namespace {

__global__ void barrier_variants(int *out)
{
    int t = threadIdx.x;
    out[0 + t * 4] = __syncthreads_count(t % 3 == 0);
    out[1 + t * 4] = __syncthreads_and(t < 100);
    out[2 + t * 4] = __syncthreads_and(t < 99);
    out[3 + t * 4] = __syncthreads_or(t == 57);
}

void test_syncthreads_variants()
{
    int *d;
    std::vector<int> h(400);
    EXPECT_OK(cudaMalloc(&d, 400 * sizeof(int)));
    barrier_variants<<<1, 100>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h.data(), d, 400 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 100; ++t) {
        CU_ASSERT_EQUAL(h[t * 4 + 0], 34);
        CU_ASSERT_EQUAL(h[t * 4 + 1], 1);
        CU_ASSERT_EQUAL(h[t * 4 + 2], 0);
        CU_ASSERT_EQUAL(h[t * 4 + 3], 1);
    }
    cudaFree(d);
}

/* The textbook tiled transpose: a 32x33 tile (padded against bank
 * conflicts), 32x8 threads, sizes that are no multiple of the tile. */
template <int TILE, int ROWS>
__global__ void transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

void test_tiled_transpose()
{
    const int rows = 70, cols = 33;
    std::vector<float> in(rows * cols), out(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
        in[i] = (float)i;
    float *din, *dout;
    EXPECT_OK(cudaMalloc(&din, in.size() * sizeof(float)));
    EXPECT_OK(cudaMalloc(&dout, in.size() * sizeof(float)));
    EXPECT_OK(cudaMemcpy(din, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 grid((cols + 31) / 32, (rows + 31) / 32), block(32, 8);
    transpose<32, 8><<<grid, block>>>(dout, din, rows, cols);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            wrong += out[(size_t)c * rows + r] != in[(size_t)r * cols + c];
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(din);
    cudaFree(dout);
}

/* Two variables in one declaration, and one in a device function called
 * twice: each is one allocation per block, the same on every call. */
__device__ int *block_counter()
{
    __shared__ int counter;
    return &counter;
}

__global__ void declarators(int *out)
{
    __shared__ int a[4], b[4];
    if (threadIdx.x < 4) {
        a[threadIdx.x] = 10 + threadIdx.x;
        b[threadIdx.x] = 20 + threadIdx.x;
    }
    if (threadIdx.x == 0)
        *block_counter() = (int)blockIdx.x;
    __syncthreads();
    if (threadIdx.x < 4)
        out[blockIdx.x * 12 + threadIdx.x] = a[threadIdx.x] + b[3 - threadIdx.x];
    if (threadIdx.x == 0) {
        out[blockIdx.x * 12 + 4] = block_counter() == block_counter();
        out[blockIdx.x * 12 + 5] = *block_counter();
        out[blockIdx.x * 12 + 6] = (int)(b - a != 0);
        out[blockIdx.x * 12 + 7] = (int)sizeof(a);
    }
}

void test_shared_declarators()
{
    int *d;
    std::vector<int> h(24, 0);
    EXPECT_OK(cudaMalloc(&d, 24 * sizeof(int)));
    EXPECT_OK(cudaMemset(d, 0, 24 * sizeof(int)));
    declarators<<<2, 32>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h.data(), d, 24 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < 2; ++blk) {
        for (int i = 0; i < 4; ++i)
            CU_ASSERT_EQUAL(h[blk * 12 + i], 10 + i + 20 + 3 - i);
        CU_ASSERT_EQUAL(h[blk * 12 + 4], 1);
        CU_ASSERT_EQUAL(h[blk * 12 + 5], blk);
        CU_ASSERT_EQUAL(h[blk * 12 + 6], 1);
        CU_ASSERT_EQUAL(h[blk * 12 + 7], 16);
    }
    cudaFree(d);
}

extern __shared__ float file_scope_smem[];

/* Each block fills its dynamic shared memory and sums it back: sizes and
 * contents are per block. */
__global__ void dynamic_fill(float *out, int n)
{
    extern __shared__ float smem[];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        smem[i] = (float)blockIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < n; ++i)
            s += file_scope_smem[i]; /* the same memory under its file-scope name */
        out[blockIdx.x] = s;
    }
}

void test_dynamic_shared_memory()
{
    const int n = 1000, blocks = 3;
    float *d, h[blocks];
    EXPECT_OK(cudaMalloc(&d, blocks * sizeof(float)));
    dynamic_fill<<<blocks, 128, n * sizeof(float)>>>(d, n);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b)
        CU_ASSERT_EQUAL(h[b], (float)(b * n));
    cudaFree(d);
}

/* The order warps start in, by ticket: WARPS[k] is the k-th warp of block 0 to
 * run; every block also takes a ticket, so BLOCKS[k] is the k-th block. */
__global__ void record_order(unsigned *warps, unsigned *blocks, unsigned *tickets)
{
    if (blockIdx.x == 0 && threadIdx.x % 32 == 0)
        warps[atomicAdd(&tickets[0], 1u)] = threadIdx.x / 32;
    if (threadIdx.x == 0)
        blocks[atomicAdd(&tickets[1], 1u)] = blockIdx.x;
}

/* Runs record_order under schedule WORD: 8 warps per block, 64 blocks. */
void run_order(unsigned long long word, std::vector<unsigned> &warps, std::vector<unsigned> &blocks)
{
    unsigned *d;
    EXPECT_OK(cudaMalloc(&d, (8 + 64 + 2) * sizeof(unsigned)));
    EXPECT_OK(cudaMemset(d, 0, (8 + 64 + 2) * sizeof(unsigned)));
    CU_ASSERT_EQUAL(cuda_emu_schedule(word), 0); /* the program may set it */
    record_order<<<64, 256>>>(d, d + 8, d + 72);
    EXPECT_OK(cudaGetLastError());
    cuda_emu_schedule(0);
    warps.assign(8, 0);
    blocks.assign(64, 0);
    EXPECT_OK(cudaMemcpy(warps.data(), d, 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(blocks.data(), d + 8, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    cudaFree(d);
}

void test_schedule_orders()
{
    std::vector<unsigned> warps, blocks, warps2, blocks2;
    /* Schedule 0: warps in index order (blocks too, when one worker runs them). */
    run_order(0, warps, blocks);
    for (unsigned w = 0; w < 8; ++w)
        CU_ASSERT_EQUAL(warps[w], w);
    /* A word and the same word with its lowest bit flipped: one warp order and its reverse,
     * every warp and every block run once; some word moves warp 0 from the front. */
    bool moved = false;
    for (unsigned long long word : {0x5eed5eed12345678ull, 0x0123456789abcdeeull, 0x2ull}) {
        run_order(word, warps, blocks);
        run_order(word ^ 1, warps2, blocks2);
        for (unsigned k = 0; k < 8; ++k)
            CU_ASSERT_EQUAL(warps2[k], warps[7 - k]);
        std::vector<unsigned> seen(64, 0), seen_w(8, 0);
        for (unsigned b : blocks)
            if (b < 64)
                seen[b]++;
        for (unsigned w : warps)
            if (w < 8)
                seen_w[w]++;
        for (unsigned b = 0; b < 64; ++b)
            CU_ASSERT_EQUAL(seen[b], 1u);
        for (unsigned w = 0; w < 8; ++w)
            CU_ASSERT_EQUAL(seen_w[w], 1u);
        moved |= warps[0] != 0;
        CU_ASSERT(blocks != blocks2); /* the grid's order changed too */
    }
    CU_ASSERT(moved);
}

/* Warps that each leave a different value in one word, and warps that all leave one value. */
__global__ void last_writer(int *out, int same)
{
    __shared__ int word;
    if (threadIdx.x % 32 == 0)
        word = same ? 7 : (int)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        *out = word;
}

void test_write_write_races()
{
    int *d, h = 0;
    EXPECT_OK(cudaMalloc(&d, sizeof(int)));
    last_writer<<<1, 128>>>(d, 1);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h, 7);
    StderrCapture cap;
    last_writer<<<1, 128>>>(d, 0);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "cuda-emu: error: data race on shared memory: two writes of different "
                            "values in kernel last_writer, block (0,0,0), thread (32,0,0)"));
    CU_ASSERT(contains(err, "thread (0,0,0) (warp 0) of the same block wrote another value there"));
    cudaDeviceReset();
}

/* Block 0 writes its shared word; block 1 only reads: it must find the
 * poison of fresh shared memory, not block 0's value. */
__global__ void shared_leak(unsigned *out)
{
    __shared__ unsigned word;
    if (blockIdx.x == 0)
        word = 42;
    __syncthreads();
    out[blockIdx.x] = word;
}

void test_fresh_shared_memory_per_block()
{
    unsigned *d, h[2];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    cuda_emu::set_checks(false);
    shared_leak<<<2, 1>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    cuda_emu::set_checks(true);
    CU_ASSERT_EQUAL(h[0], 42u);
    CU_ASSERT_EQUAL(h[1], 0xffffffffu);
    /* With the check on, block 1's read is reported, and so is the copy of what it wrote. */
    StderrCapture cap;
    shared_leak<<<2, 1>>>(d);
    std::string err = cap.stop();
    CU_ASSERT(contains(err, "cuda-emu: warning: read of shared memory that no thread of the block "
                            "has written yet (missing __syncthreads()?) in kernel shared_leak, "
                            "block (1,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "reads __shared__ word, element 0"));
    StderrCapture cap2;
    CU_ASSERT_EQUAL(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    CU_ASSERT(contains(cap2.stop(), "copies results computed by threads that read uninitialized memory"));
    EXPECT_OK(cudaDeviceReset());
}

__global__ void shared_overflow(int *out)
{
    extern __shared__ int dyn[];
    dyn[threadIdx.x] = 1;
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x];
}

void test_shared_memory_limits()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 64 * sizeof(int)));
    /* 48 KB is the default limit of dynamic shared memory... */
    StderrCapture cap;
    shared_overflow<<<1, 32, 48 * 1024 + 4>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidValue);
    CU_ASSERT(contains(err, "cudaFuncAttributeMaxDynamicSharedMemorySize"));
    /* ...which the kernel's attribute raises, up to the opt-in maximum. */
    EXPECT_OK(cudaFuncSetAttribute(shared_overflow, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   64 * 1024));
    shared_overflow<<<1, 32, 64 * 1024>>>(d);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    CU_ASSERT_EQUAL(cudaFuncSetAttribute(shared_overflow,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024),
                    cudaErrorInvalidValue);
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, shared_overflow));
    CU_ASSERT_EQUAL(attr.maxDynamicSharedSizeBytes, 64 * 1024);
    cudaGetLastError();
    cudaFree(d);
}

__global__ void __launch_bounds__(256) bounded_256(int *out) { out[threadIdx.x] = 1; }
__global__ void __launch_bounds__(128, 4) bounded_128_4(int *out) { out[threadIdx.x] = 2; }
/* Overloads share a name: each is registered under a flag of its own, and the bounds of a name
 * with no one address are noted at the first launch. */
__global__ void __launch_bounds__(64) overloaded(int *out) { out[threadIdx.x] = 3; }
__global__ void __launch_bounds__(96) overloaded(float *out) { out[threadIdx.x] = 4.f; }
template <int N> __global__ void __launch_bounds__(N) bounded_template(int *out)
{
    out[threadIdx.x] = N;
}

/* A kernel's __launch_bounds__ are answered as a GPU answers them, before its first launch:
 * cudaFuncGetAttributes' maxThreadsPerBlock, the occupancy API's cap and its block size (an
 * honest launcher sizes its blocks this way, and a block of 1024 would be refused). */
void test_launch_bounds_answer_like_a_gpu()
{
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, bounded_256));
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, 256);
    EXPECT_OK(cudaFuncGetAttributes(&attr, bounded_128_4));
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, 128);
    CU_ASSERT(attr.numRegs <= 128);
    int min_grid = 0, block = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded_256, 0, 0));
    CU_ASSERT(block > 0 && block <= 256);
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded_128_4, 0, 0));
    CU_ASSERT(block > 0 && block <= 128);
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded_256, 512, 0));
    CU_ASSERT_EQUAL(blocks, 0);
    int *d;
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(int)));
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded_256, 0, 0));
    bounded_256<<<1, block>>>(d);
    EXPECT_OK(cudaDeviceSynchronize());
    /* A template's bounds are known from its first run on (no static registration). */
    bounded_template<64><<<1, 64>>>(d);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaFuncGetAttributes(&attr, bounded_template<64>));
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, 64);
    overloaded<<<1, 64>>>(d);
    overloaded<<<1, 96>>>(reinterpret_cast<float *>(d));
    EXPECT_OK(cudaDeviceSynchronize());
    int host[2];
    EXPECT_OK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(host[0], 0x40800000); /* 4.f, the float overload's, written last */
    EXPECT_OK(cudaFree(d));
}

__global__ void static_tile(int *out)
{
    __shared__ float tile[64][65]; /* 16,640 bytes */
    tile[threadIdx.x][0] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = (int)tile[63 - threadIdx.x][0];
}

/* A kernel's static __shared__ bytes, once a block of it has run, in cudaFuncGetAttributes
 * (sharedSizeBytes, and the dynamic bytes left) and in the occupancy API, as a GPU counts
 * them: 228 KB an SM hold 13 blocks of 16,640 + 1,024 reserved bytes, not the 32 of 64 threads. */
void test_static_shared_in_the_attributes()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 64 * sizeof(int)));
    static_tile<<<1, 64>>>(d);
    EXPECT_OK(cudaDeviceSynchronize());
    int host[64];
    EXPECT_OK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(host[0], 63);
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, static_tile));
    CU_ASSERT_EQUAL(attr.sharedSizeBytes, (size_t)(64 * 65 * 4));
    CU_ASSERT_EQUAL(attr.maxDynamicSharedSizeBytes, 48 * 1024 - 64 * 65 * 4);
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_tile, 64, 0));
    CU_ASSERT_EQUAL(blocks, (228 * 1024) / (64 * 65 * 4 + 1024));
    EXPECT_OK(cudaFree(d));
}

__global__ void figured(float *out) { out[threadIdx.x] = 1.f; }
__global__ void figured_carveout(float *out) { out[threadIdx.x] = 2.f; }

/* What nvcc's build says a kernel uses (emu-nvcc appends such a table to a file that asks:
 * common/emu/rewrite/figures.h; test_figures.cu has nvcc's own), answered before the kernel's
 * first launch as a GPU answers it, by the CUDA occupancy calculator's rules (cuda_occupancy.h):
 * 72 registers a thread are 2,304 a warp (a multiple of 256), so each of the SM's four register
 * files (16,384) holds 7 warps: 28 an SM, 3 blocks of 256 threads, 7 of 128; a block may have 28
 * warps, 896 threads (the hardware rounds a block's warps up to four); 4,000 static bytes and
 * the 1 KB reserved, in units of 128, are 5,120 a block. */
void test_nvcc_figures_before_the_first_launch()
{
    const cuda_emu::KernelResources table[] = {
        {reinterpret_cast<const void *>(figured), 72, 1, 4000, 256, 1024, 0},
        {reinterpret_cast<const void *>(figured_carveout), 16, 1, 16000, 0, 0, 0},
        {nullptr, 40, 0, 0, 0, 0, 0},                                     /* g++ made no such kernel */
        {reinterpret_cast<const void *>(figured), 300, 0, 0, 0, 0, 0},    /* no figure of nvcc's */
    };
    cuda_emu::register_kernel_resources(table, 4);
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, figured));
    CU_ASSERT_EQUAL(attr.numRegs, 72);
    CU_ASSERT_EQUAL(attr.maxThreadsPerBlock, 896);
    CU_ASSERT_EQUAL(attr.sharedSizeBytes, 4000u);
    CU_ASSERT_EQUAL(attr.localSizeBytes, 256u);
    CU_ASSERT_EQUAL(attr.constSizeBytes, 1024u);
    CU_ASSERT_EQUAL(attr.maxDynamicSharedSizeBytes, 48 * 1024 - 4000);
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 256, 0));
    CU_ASSERT_EQUAL(blocks, 3);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 128, 0));
    CU_ASSERT_EQUAL(blocks, 7);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 896, 0));
    CU_ASSERT_EQUAL(blocks, 1);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 928, 0));
    CU_ASSERT_EQUAL(blocks, 0);
    /* 45 blocks of 5,120 bytes in 228 KB: with 32 threads, the 32 blocks an SM holds decide */
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 32, 0));
    CU_ASSERT_EQUAL(blocks, 28);
    int min_grid = 0, block = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, figured, 0, 0));
    CU_ASSERT_EQUAL(block, 896);
    CU_ASSERT_EQUAL(min_grid, 4);
    /* A block its registers leave no room for is refused, as a GPU refuses it. */
    float *d;
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(float)));
    StderrCapture cap;
    figured<<<1, 1024>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    CU_ASSERT(contains(err, "1024 threads per block, but nvcc gives the kernel 72 registers a "
                            "thread, and the 65536 registers a block may have hold at most 896"));
    figured<<<1, 896>>>(d);
    EXPECT_OK(cudaDeviceSynchronize());
    /* Its dynamic shared memory: 48 KB less its static bytes, or the opt-in maximum less them. */
    StderrCapture cap2;
    figured<<<1, 32, 48 * 1024 - 4000 + 4>>>(d);
    CU_ASSERT(contains(cap2.stop(), "48 KB less the kernel's static shared memory"));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidValue);
    CU_ASSERT_EQUAL(cudaFuncSetAttribute(figured, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         227 * 1024 - 4000 + 1),
                    cudaErrorInvalidValue);
    EXPECT_OK(cudaFuncSetAttribute(figured, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   227 * 1024 - 4000));
    /* The carveout a kernel prefers sizes the SM's shared memory: half of 228 KB is 114, so the
     * SM takes 132 KB, 7 blocks of 17,024 bytes (16,000 and the 1 KB reserved) where 228 hold 13. */
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured_carveout, 64, 0));
    CU_ASSERT_EQUAL(blocks, 13);
    EXPECT_OK(cudaFuncSetAttribute(figured_carveout, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured_carveout, 64, 0));
    CU_ASSERT_EQUAL(blocks, 7);
    /* A cache configuration stands for a carveout where none is set: "equal" is half, 132 KB an
     * SM, 26 blocks of 5,120 bytes where the registers allow 28. */
    EXPECT_OK(cudaFuncSetCacheConfig(figured, cudaFuncCachePreferEqual));
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, figured, 32, 0));
    CU_ASSERT_EQUAL(blocks, 26);
    /* The dynamic shared memory that leaves room for 3 blocks of 128 threads: 132 KB / 3 is 45,056
     * a block, less the 4,000 static and 1 KB reserved bytes. */
    size_t room = 0;
    EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&room, figured, 3, 128));
    CU_ASSERT_EQUAL(room, 45056u - 4000 - 1024);
    EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&room, figured, 8, 128));
    CU_ASSERT_EQUAL(room, 0u); /* its registers hold 7 such blocks */
    cudaGetLastError();
    EXPECT_OK(cudaFree(d));
}

__global__ void exit_before_barrier(int *out)
{
    if (threadIdx.x >= 48)
        return;
    out[threadIdx.x] = 1;
    __syncthreads();
}

void test_barrier_after_early_exit_is_an_error()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 64 * sizeof(int)));
    StderrCapture cap;
    exit_before_barrier<<<2, 64>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    /* Either block may be the one reported: blocks run on several host threads. */
    const std::string head = "cuda-emu: error: __syncthreads() not reached by every thread of "
                             "the block in kernel exit_before_barrier, block ";
    CU_ASSERT(contains(err, err.find(head + "(1,0,0)") != std::string::npos ? head + "(1,0,0)"
                                                                           : head + "(0,0,0)"));
    CU_ASSERT(contains(err, "48 threads wait at __syncthreads() at tests/emu/test_block.cu:"));
    CU_ASSERT(contains(err, "16 threads exited without reaching it: (48,0,0)..(63,0,0)"));
    /* Sticky, as a fault on a GPU: every call fails until the reset. */
    void *p;
    CU_ASSERT_EQUAL(cudaMalloc(&p, 4), cudaErrorLaunchFailure);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorLaunchFailure);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaMalloc(&p, 4));
    EXPECT_OK(cudaFree(p));
}

__global__ void divergent_barriers(int *out)
{
    if (threadIdx.y == 0) {
        out[threadIdx.x] = 1;
        __syncthreads();
    } else {
        out[threadIdx.x + 32] = 2;
        __syncthreads();
    }
}

void test_divergent_barriers_are_an_error()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 64 * sizeof(int)));
    StderrCapture cap;
    divergent_barriers<<<1, dim3(32, 2)>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "threads of a block wait at different __syncthreads()"));
    CU_ASSERT(contains(err, "32 threads wait at __syncthreads() at tests/emu/test_block.cu:"));
    CU_ASSERT(contains(err, "(0,1,0)..(31,1,0)"));
    EXPECT_OK(cudaDeviceReset());
}

__global__ void barrier_vs_shuffle(int *out)
{
    if (threadIdx.x < 16)
        __syncthreads();
    else
        out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
}

void test_deadlock_is_reported()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 32 * sizeof(int)));
    StderrCapture cap;
    barrier_vs_shuffle<<<1, 32>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "cuda-emu: error: deadlock: no thread of the block can continue in "
                            "kernel barrier_vs_shuffle, block (0,0,0)"));
    CU_ASSERT(contains(err, "16 threads wait at __syncthreads()"));
    CU_ASSERT(contains(err, "for lane 0, which waits at __syncthreads() instead"));
    EXPECT_OK(cudaDeviceReset());
}

CU_TestInfo tests[] = {
    {"syncthreads_count, _and, _or", test_syncthreads_variants},
    {"schedules: warps and blocks in a drawn order, and its reverse", test_schedule_orders},
    {"two warps writing different values to one word race; one value does not", test_write_write_races},
    {"tiled transpose with a padded 32x33 tile", test_tiled_transpose},
    {"shared declarators: one per block, one per declaration", test_shared_declarators},
    {"dynamic shared memory, in and out of the kernel", test_dynamic_shared_memory},
    {"fresh shared memory per block: poisoned, checked", test_fresh_shared_memory_per_block},
    {"dynamic shared memory limit and the opt-in attribute", test_shared_memory_limits},
    {"__launch_bounds__ in the attributes and the occupancy API", test_launch_bounds_answer_like_a_gpu},
    {"static __shared__ bytes in the attributes and the occupancy API", test_static_shared_in_the_attributes},
    {"nvcc's figures, before the first launch: registers, shared, local and constant memory, occupancy", test_nvcc_figures_before_the_first_launch},
    {"barrier after some threads exit is an error (sticky)", test_barrier_after_early_exit_is_an_error},
    {"different barriers in a block are an error", test_divergent_barriers_are_an_error},
    {"barrier against a shuffle: deadlock", test_deadlock_is_reported},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_block_suite() { add_suite("blocks and shared memory", tests); }
