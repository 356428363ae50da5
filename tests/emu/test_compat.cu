/*
 * test_compat.cu -- what code written for a GPU expects of the toolchain:
 * __CUDA_ARCH__ defined to the emulated device, NVIDIA's header guards, device
 * clock(), default stream arguments, byte-exact race tracking, objects with
 * virtual functions built in a kernel, and cooperative groups.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <ctime>
#include <thread>

#include "emu_test.h"

namespace cg = cooperative_groups;

namespace {

__global__ void arch_guarded(int *out)
{
#if __CUDA_ARCH__ >= 700
    *out = __CUDA_ARCH__;
#else
    *out = -1;
#endif
}

void test_cuda_arch_matches_the_device()
{
    int *d, h = 0;
    EXPECT_OK(cudaMalloc(&d, sizeof(int)));
    arch_guarded<<<1, 1>>>(d);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    cudaDeviceProp prop;
    EXPECT_OK(cudaGetDeviceProperties(&prop, 0));
    CU_ASSERT_EQUAL(h, prop.major * 100 + prop.minor * 10);
#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_H__)
    CU_FAIL("NVIDIA's include guards are not defined");
#endif
    cudaFree(d);
}

/* clock() in a kernel is the SM clock (nanoseconds here), not process CPU time. */
__global__ void spin_on_clock(long long *out)
{
    clock_t start = clock();
    long long start64 = clock64();
    while (clock64() - start64 < 200000) {
    }
    out[0] = (long long)(clock() - start);
}

void test_device_clock()
{
    long long *d, h = 0;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    spin_on_clock<<<1, 1>>>(d);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT(h >= 200000 && h < 200000000);
    cudaFree(d);
}

/* Neighbouring bytes and halves written by different threads: no race. */
__global__ void byte_histogram(unsigned char *bytes, unsigned short *halves)
{
    bytes[threadIdx.x] = (unsigned char)threadIdx.x;
    halves[threadIdx.x] = (unsigned short)(threadIdx.x * 3);
    __syncthreads();
    bytes[threadIdx.x] += bytes[(threadIdx.x + 4) % blockDim.x] & 0;
}

/* Two threads writing and reading the same byte: a race. */
__global__ void same_byte(unsigned char *bytes)
{
    if (threadIdx.x == 1)
        bytes[2] = 7;
    if (threadIdx.x == 0)
        bytes[3] = bytes[2];
}

void test_races_are_per_byte()
{
    unsigned char *b;
    unsigned short *h;
    EXPECT_OK(cudaMalloc(&b, 64));
    EXPECT_OK(cudaMalloc(&h, 128));
    byte_histogram<<<1, 64>>>(b, h);
    EXPECT_OK(cudaDeviceSynchronize());
    unsigned char out[64];
    EXPECT_OK(cudaMemcpy(out, b, 64, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(out[63], 63);
    StderrCapture cap;
    same_byte<<<1, 32>>>(b);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "data race on device memory"));
    EXPECT_OK(cudaDeviceReset());
}

struct Shape {
    __device__ virtual float area() const { return 0; }
};
struct Square : Shape {
    float side;
    __device__ explicit Square(float s) : side(s) {}
    __device__ float area() const override { return side * side; }
};

__global__ void build_and_call(Square *mem, float *out)
{
    Shape *s = new (mem + threadIdx.x) Square((float)threadIdx.x);
    out[threadIdx.x] = s->area();
}

void test_objects_built_in_a_kernel()
{
    Square *mem;
    float *d, h[8];
    EXPECT_OK(cudaMalloc(&mem, 8 * sizeof(Square)));
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    StderrCapture cap;
    build_and_call<<<1, 8>>>(mem, d);
    std::string err = cap.stop();
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h[7], 49.0f);
    CU_ASSERT(err.find("uninitialized") == std::string::npos);
    cudaFree(mem);
    cudaFree(d);
}

__global__ void groups(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int v = in[block.thread_rank()];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int low = cg::reduce(tile, v, cg::less<int>());
    int scan = cg::inclusive_scan(tile, v);
    int x = v;
    for (unsigned o = tile.size() / 2; o > 0; o /= 2)
        x += tile.shfl_down(x, o);
    unsigned odd = tile.ballot(v & 1);
    block.sync();
    int r = block.thread_rank();
    out[4 * r] = sum;
    out[4 * r + 1] = low;
    out[4 * r + 2] = scan;
    out[4 * r + 3] = tile.thread_rank() == 0 ? x - sum + (int)__popc(odd) : (int)tile.meta_group_rank();
}

void test_cooperative_groups()
{
    const int n = 64;
    int hin[n], hout[4 * n], *din, *dout;
    for (int i = 0; i < n; ++i)
        hin[i] = (i * 37) % 11;
    EXPECT_OK(cudaMalloc(&din, sizeof hin));
    EXPECT_OK(cudaMalloc(&dout, sizeof hout));
    EXPECT_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    groups<<<1, n>>>(din, dout);
    EXPECT_OK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        int t = i / 8 * 8, sum = 0, low = 1 << 30, scan = 0, odd = 0;
        for (int j = t; j < t + 8; ++j) {
            sum += hin[j];
            low = hin[j] < low ? hin[j] : low;
            odd += hin[j] & 1;
            if (j <= i)
                scan += hin[j];
        }
        wrong += hout[4 * i] != sum || hout[4 * i + 1] != low || hout[4 * i + 2] != scan;
        wrong += hout[4 * i + 3] != (i % 8 == 0 ? odd : i / 8);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(din);
    cudaFree(dout);
}

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

/* Each host thread allocates, launches, copies and frees on its own stream. */
void host_worker(int seed, int *failures)
{
    const int n = 300;
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess) {
        ++*failures;
        return;
    }
    for (int round = 0; round < 20; ++round) {
        int h[n], *d;
        for (int i = 0; i < n; ++i)
            h[i] = seed + i;
        if (cudaMalloc(&d, sizeof h) != cudaSuccess) {
            ++*failures;
            continue;
        }
        cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, s);
        add_one<<<(n + 63) / 64, 64, 0, s>>>(d, n);
        cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        for (int i = 0; i < n; ++i)
            *failures += h[i] != seed + i + 1;
        cudaFree(d);
    }
    *failures += cudaGetLastError() != cudaSuccess;
    cudaStreamDestroy(s);
}

void test_cuda_from_several_host_threads()
{
    int failures[3] = {0, 0, 0};
    std::thread a(host_worker, 1000, &failures[0]), b(host_worker, 2000, &failures[1]);
    host_worker(3000, &failures[2]);
    a.join();
    b.join();
    CU_ASSERT_EQUAL(failures[0] + failures[1] + failures[2], 0);
}

CU_TestInfo tests[] = {
    {"CUDA calls from several host threads", test_cuda_from_several_host_threads},
    {"__CUDA_ARCH__ and NVIDIA's header guards", test_cuda_arch_matches_the_device},
    {"clock() in a kernel is the device clock", test_device_clock},
    {"races are tracked per byte", test_races_are_per_byte},
    {"an object with virtual functions built in a kernel", test_objects_built_in_a_kernel},
    {"cooperative groups: tiles, reduce, scan, shuffles, ballot", test_cooperative_groups},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_compat_suite() { add_suite("code written for a GPU", tests); }
