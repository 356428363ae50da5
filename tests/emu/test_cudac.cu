/*
 * test_cudac.cu -- CUDA C whose meaning on a GPU differs from plain C++ or
 * needs the runtime's help: shifts by the width or more, the directed-rounding
 * intrinsics, inline PTX that reads a special register, cooperative-groups
 * tiles wider than a warp, labeled and binary partitions, memcpy_async, cooperative
 * launches with grid.sync(), and kernels launched by address.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cfloat>
#include <cmath>

#include "emu_test.h"

namespace cg = cooperative_groups;

namespace {

/* Shifts: PTX clamps the count, so the width or more gives 0 (or the sign). */
__global__ void shifts(unsigned *u, int *s, unsigned long long *l, int count)
{
    u[0] = 1u << count;             /* 0 on a GPU for count >= 32 */
    u[1] = 0x80000000u >> count;    /* 0 */
    s[0] = -8 >> count;             /* -1: the sign */
    s[1] = 8 >> count;              /* 0 */
    l[0] = 1ull << (count + 31);    /* bit 63 for count 32 */
    l[1] = 1ull << (count + 32);    /* 0 for count 32 */
    unsigned x = 0xffu;
    x <<= count;                    /* 0 */
    u[2] = x;
    int k = 3;
    u[3] = (unsigned)(1 << k);      /* an ordinary shift stays one */
    u[4] = (unsigned)(-1 << 4);     /* a negative value's bits, shifted */
}

void test_shifts_by_the_width()
{
    unsigned *u, hu[5];
    int *s, hs[2];
    unsigned long long *l, hl[2];
    EXPECT_OK(cudaMalloc(&u, sizeof hu));
    EXPECT_OK(cudaMalloc(&s, sizeof hs));
    EXPECT_OK(cudaMalloc(&l, sizeof hl));
    shifts<<<1, 1>>>(u, s, l, 32);
    EXPECT_OK(cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hs, s, sizeof hs, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hl, l, sizeof hl, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(hu[0], 0u);
    CU_ASSERT_EQUAL(hu[1], 0u);
    CU_ASSERT_EQUAL(hs[0], -1);
    CU_ASSERT_EQUAL(hs[1], 0);
    CU_ASSERT_EQUAL(hl[0], 1ull << 63);
    CU_ASSERT_EQUAL(hl[1], 0ull);
    CU_ASSERT_EQUAL(hu[2], 0u);
    CU_ASSERT_EQUAL(hu[3], 8u);
    CU_ASSERT_EQUAL(hu[4], 0xfffffff0u);
    cudaFree(u);
    cudaFree(s);
    cudaFree(l);
}

/* Directed rounding: 1 + 2^-30 is not a float, so the modes disagree. */
__global__ void rounding(float *f, double *d, int *i)
{
    float a = 1.0f, b = 0x1p-30f;
    f[0] = __fadd_rn(a, b);
    f[1] = __fadd_rd(a, b);
    f[2] = __fadd_ru(a, b);
    f[3] = __fadd_rz(-a, -b);
    f[4] = __fmul_ru(1.0f + 0x1p-23f, 1.0f + 0x1p-23f);
    f[5] = __fdiv_rd(1.0f, 3.0f);
    f[6] = __fdiv_ru(1.0f, 3.0f);
    f[7] = __fsqrt_ru(2.0f);
    f[8] = __int2float_rd(16777217);
    f[9] = __int2float_ru(16777217);
    d[0] = __dadd_rd(1.0, 0x1p-60);
    d[1] = __dadd_ru(1.0, 0x1p-60);
    d[2] = __dmul_rz(-(1.0 + 0x1p-52), 1.0 + 0x1p-52);
    i[0] = __float2int_rd(-1.5f);
    i[1] = __float2int_ru(-1.5f);
    i[2] = __float2int_rn(2.5f);
    i[3] = __float2int_rz(3e9f); /* saturates, as the GPU does */
    i[4] = __float2int_rn(nanf(""));
}

void test_directed_rounding()
{
    float *f, hf[10];
    double *d, hd[3];
    int *i, hi[5];
    EXPECT_OK(cudaMalloc(&f, sizeof hf));
    EXPECT_OK(cudaMalloc(&d, sizeof hd));
    EXPECT_OK(cudaMalloc(&i, sizeof hi));
    rounding<<<1, 1>>>(f, d, i);
    EXPECT_OK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hi, i, sizeof hi, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(hf[0], 1.0f);
    CU_ASSERT_EQUAL(hf[1], 1.0f);
    CU_ASSERT_EQUAL(hf[2], nextafterf(1.0f, 2.0f));
    CU_ASSERT_EQUAL(hf[3], -1.0f);
    CU_ASSERT_EQUAL(hf[4], 1.0f + 0x1p-22f + 0x1p-23f);
    CU_ASSERT(hf[5] < hf[6] && nextafterf(hf[5], 1.0f) == hf[6]);
    CU_ASSERT(hf[7] * hf[7] > 2.0f && nextafterf(hf[7], 0.0f) * nextafterf(hf[7], 0.0f) < 2.0f);
    CU_ASSERT_EQUAL(hf[8], 16777216.0f);
    CU_ASSERT_EQUAL(hf[9], 16777218.0f);
    CU_ASSERT_EQUAL(hd[0], 1.0);
    CU_ASSERT_EQUAL(hd[1], nextafter(1.0, 2.0));
    CU_ASSERT_EQUAL(hd[2], -(1.0 + 0x1p-51));
    CU_ASSERT_EQUAL(hi[0], -2);
    CU_ASSERT_EQUAL(hi[1], -1);
    CU_ASSERT_EQUAL(hi[2], 2);
    CU_ASSERT_EQUAL(hi[3], 2147483647);
    CU_ASSERT_EQUAL(hi[4], 0);
    /* The host's own arithmetic is still rounded to nearest. */
    volatile float x = 1.0f, y = 0x1p-24f;
    CU_ASSERT_EQUAL(x + y, 1.0f);
    cudaFree(f);
    cudaFree(d);
    cudaFree(i);
}

/* Inline PTX reading special registers. */
__global__ void special_registers(unsigned *out)
{
    unsigned lane, warp, lt;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    out[threadIdx.x] = lane | warp << 8 | (lt == (1u << lane) - 1) << 16;
}

void test_inline_ptx_special_registers()
{
    unsigned *d, h[64];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    special_registers<<<1, 64>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (unsigned t = 0; t < 64; ++t)
        wrong += h[t] != (t % 32 | (t / 32) << 8 | 1u << 16);
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(d);
}

/* Tiles of 128 threads in a block of 256: sync, ranks, reduce and scans. */
__global__ void wide_tiles(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
    __shared__ int stage[256];
    int v = in[block.thread_rank()];
    stage[block.thread_rank()] = v;
    tile.sync();
    /* After the tile's sync, a neighbour's value in the same tile is visible. */
    int other = stage[tile.meta_group_rank() * 128 + (tile.thread_rank() + 1) % 128];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int incl = cg::inclusive_scan(tile, v);
    int excl = cg::exclusive_scan(tile, v);
    int bsum = cg::reduce(block, v, cg::plus<int>());
    int t = block.thread_rank();
    out[5 * t] = other;
    out[5 * t + 1] = sum;
    out[5 * t + 2] = incl;
    out[5 * t + 3] = excl;
    out[5 * t + 4] = bsum + (int)tile.meta_group_size() * 1000000;
}

void test_tiles_wider_than_a_warp()
{
    const int n = 256;
    int hin[n], hout[5 * n], *din, *dout;
    for (int i = 0; i < n; ++i)
        hin[i] = (i * 7) % 13 - 3;
    EXPECT_OK(cudaMalloc(&din, sizeof hin));
    EXPECT_OK(cudaMalloc(&dout, sizeof hout));
    EXPECT_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    wide_tiles<<<1, n>>>(din, dout);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int all = 0;
    for (int i = 0; i < n; ++i)
        all += hin[i];
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        int t = i / 128 * 128, sum = 0, incl = 0, excl = 0;
        for (int j = t; j < t + 128; ++j) {
            sum += hin[j];
            incl += j <= i ? hin[j] : 0;
            excl += j < i ? hin[j] : 0;
        }
        wrong += hout[5 * i] != hin[t + (i - t + 1) % 128];
        wrong += hout[5 * i + 1] != sum || hout[5 * i + 2] != incl || hout[5 * i + 3] != excl;
        wrong += hout[5 * i + 4] != all + 2000000;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(din);
    cudaFree(dout);
}

/* labeled_partition and binary_partition: the lanes with the same label. */
__global__ void partitions(const int *in, int *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[threadIdx.x];
    cg::coalesced_group same = cg::labeled_partition(warp, v % 3);
    cg::coalesced_group odd = cg::binary_partition(warp, v & 1);
    out[3 * threadIdx.x] = (int)same.size();
    out[3 * threadIdx.x + 1] = cg::reduce(same, v, cg::plus<int>());
    out[3 * threadIdx.x + 2] = (int)odd.thread_rank();
}

void test_labeled_and_binary_partitions()
{
    int hin[32], hout[96], *din, *dout;
    for (int i = 0; i < 32; ++i)
        hin[i] = (i * 5) % 7;
    EXPECT_OK(cudaMalloc(&din, sizeof hin));
    EXPECT_OK(cudaMalloc(&dout, sizeof hout));
    EXPECT_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    partitions<<<1, 32>>>(din, dout);
    EXPECT_OK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < 32; ++i) {
        int size = 0, sum = 0, rank = 0;
        for (int j = 0; j < 32; ++j) {
            if (hin[j] % 3 == hin[i] % 3) {
                ++size;
                sum += hin[j];
            }
            rank += j < i && (hin[j] & 1) == (hin[i] & 1);
        }
        wrong += hout[3 * i] != size || hout[3 * i + 1] != sum || hout[3 * i + 2] != rank;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(din);
    cudaFree(dout);
}

/* A cooperative launch: every block adds its part, grid.sync(), then block 0
 * reads every block's part (ordered by the grid's sync: no race). */
__global__ void grid_sum(const int *in, int *partial, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int s;
    if (threadIdx.x == 0)
        s = 0;
    __syncthreads();
    for (int i = (int)grid.thread_rank(); i < n; i += (int)grid.size())
        atomicAdd(&s, in[i]);
    __syncthreads();
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            total += partial[b];
        *out = total + (grid.is_valid() ? 0 : 1000000);
    }
}

/* grid.sync() in an ordinary launch. */
__global__ void grid_sync_uncooperative() { cg::this_grid().sync(); }

void test_cooperative_launch()
{
    const int n = 5000, blocks = 8;
    int hin[n], total = 0, h = 0, *din, *dpartial, *dout;
    for (int i = 0; i < n; ++i)
        total += hin[i] = i % 17;
    EXPECT_OK(cudaMalloc(&din, sizeof hin));
    EXPECT_OK(cudaMalloc(&dpartial, blocks * sizeof(int)));
    EXPECT_OK(cudaMalloc(&dout, sizeof(int)));
    EXPECT_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    int nn = n;
    void *args[] = {&din, &dpartial, &dout, &nn};
    int attr = 0;
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrCooperativeLaunch, 0));
    CU_ASSERT_EQUAL(attr, 1);
    /* The kernel itself, and the kernel as a void pointer (registered by emu-rewrite). */
    EXPECT_OK(cudaLaunchCooperativeKernel(grid_sum, blocks, 128, args));
    EXPECT_OK(cudaMemcpy(&h, dout, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h, total);
    EXPECT_OK(cudaMemset(dout, 0, sizeof(int)));
    EXPECT_OK(cudaLaunchCooperativeKernel((void *)grid_sum, blocks, 128, args, 0, 0));
    EXPECT_OK(cudaMemcpy(&h, dout, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h, total);
    /* More blocks than fit at once. */
    int per_sm = 0, sms = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 1024, 0));
    EXPECT_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaLaunchCooperativeKernel(grid_sum, per_sm * sms + 1, 1024, args),
                    cudaErrorCooperativeLaunchTooLarge);
    std::string err = cap.stop();
    CU_ASSERT(contains(err, "cudaErrorCooperativeLaunchTooLarge"));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
    /* grid.sync() without a cooperative launch is an error, not a hang. */
    StderrCapture cap2;
    grid_sync_uncooperative<<<2, 32>>>();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    err = cap2.stop();
    CU_ASSERT(contains(err, "cuda-emu: error: grid.sync() in a kernel not launched cooperatively"));
    EXPECT_OK(cudaDeviceReset()); /* frees every allocation */
}

__global__ void scale(float *p, float by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= by;
}

template <class T> __global__ void templated(T *p) { *p = T(7); }

/* An address that reaches a launch without a cast of the kernel's name. */
template <class T> static const void *address_of(T fn) { return (const void *)(uintptr_t)fn; }

void test_launch_by_address()
{
    const int n = 100;
    float h[n], *d;
    for (int i = 0; i < n; ++i)
        h[i] = (float)i;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    EXPECT_OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    float by = 3.0f;
    int nn = n;
    void *args[] = {&d, &by, &nn};
    EXPECT_OK(cudaLaunchKernel((const void *)scale, dim3(4), dim3(32), args, 0, 0));
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += h[i] != 3.0f * i;
    CU_ASSERT_EQUAL(wrong, 0);
    /* A template's instance, its address taken by a cast (or reinterpret_cast), launches too. */
    int *di;
    EXPECT_OK(cudaMalloc(&di, 2 * sizeof(int)));
    void *args2[] = {&di};
    EXPECT_OK(cudaLaunchKernel((const void *)templated<int>, dim3(1), dim3(1), args2, 0, 0));
    int *di1 = di + 1;
    void *args3[] = {&di1};
    const void *by_reinterpret = reinterpret_cast<const void *>(&templated<int>);
    EXPECT_OK(cudaLaunchKernel(by_reinterpret, dim3(1), dim3(1), args3, 0, 0));
    int hi[2] = {0, 0};
    EXPECT_OK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(hi[0], 7);
    CU_ASSERT_EQUAL(hi[1], 7);
    /* A pointer the emulator never saw made (through an integer): an error that says why. */
    const void *hidden = address_of(templated<float>);
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaLaunchKernel(hidden, dim3(1), dim3(1), args2, 0, 0),
                    cudaErrorInvalidDeviceFunction);
    std::string err = cap.stop();
    CU_ASSERT(contains(err, "pass the kernel itself"));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    cudaFree(d);
    cudaFree(di);
}

/* A __shared__ variable at file scope: one copy per block. */
__shared__ int file_tile[64];

__global__ void rotate_in_file_tile(int *out)
{
    int t = threadIdx.x;
    file_tile[t] = (int)blockIdx.x * 100 + t;
    __syncthreads();
    out[blockIdx.x * 64 + t] = file_tile[(t + 1) % 64];
}

void test_file_scope_shared()
{
    const int blocks = 9;
    int h[blocks * 64], *d;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    rotate_in_file_tile<<<blocks, 64>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 64; ++t)
            wrong += h[b * 64 + t] != b * 100 + (t + 1) % 64;
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(d);
}

/* cg::memcpy_async of whole words and of an odd size at an odd address: every byte lands,
 * nothing beside it is touched, and the block reads the copies after cg::wait. */
__global__ void copy_async(const unsigned char *in, unsigned char *out)
{
    __shared__ unsigned words[48];
    __shared__ unsigned char bytes[64];
    cg::thread_block block = cg::this_thread_block();
    if (threadIdx.x < 64)
        bytes[threadIdx.x] = 0xee;
    block.sync();
    cg::memcpy_async(block, words, reinterpret_cast<const unsigned *>(in), sizeof words);
    cg::memcpy_async(block, bytes + 3, in + 5, 37);
    cg::wait(block);
    for (unsigned i = threadIdx.x; i < sizeof words; i += blockDim.x)
        out[i] = reinterpret_cast<const unsigned char *>(words)[i];
    if (threadIdx.x < 64)
        out[sizeof words + threadIdx.x] = bytes[threadIdx.x];
}

void test_memcpy_async()
{
    unsigned char hin[192], hout[192 + 64], *din, *dout;
    for (int i = 0; i < 192; ++i)
        hin[i] = (unsigned char)(i * 29 + 7);
    EXPECT_OK(cudaMalloc(&din, sizeof hin));
    EXPECT_OK(cudaMalloc(&dout, sizeof hout));
    EXPECT_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    copy_async<<<1, 64>>>(din, dout);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < 192; ++i)
        wrong += hout[i] != hin[i];
    for (int i = 0; i < 64; ++i)
        wrong += hout[192 + i] != (i >= 3 && i < 40 ? hin[i + 2] : 0xee);
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(din);
    cudaFree(dout);
}

CU_TestInfo tests[] = {
    {"shifts by the width or more give the GPU's result", test_shifts_by_the_width},
    {"directed-rounding intrinsics", test_directed_rounding},
    {"inline PTX reading special registers", test_inline_ptx_special_registers},
    {"cooperative groups: tiles wider than a warp", test_tiles_wider_than_a_warp},
    {"cooperative groups: labeled and binary partitions", test_labeled_and_binary_partitions},
    {"cooperative launch and grid.sync()", test_cooperative_launch},
    {"cudaLaunchKernel with the kernel's address", test_launch_by_address},
    {"__shared__ at file scope: a copy per block", test_file_scope_shared},
    {"cooperative groups: memcpy_async by words and by bytes", test_memcpy_async},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_cudac_suite() { add_suite("CUDA C beyond C++", tests); }
