/*
 * test_launch.cu -- launches: the forms emu-rewrite must turn into calls
 * (templates, nested parentheses, comments, strings holding "<<<", macros,
 * kernel pointers, deduced template arguments), per-thread parameter copies,
 * and CUDA's error codes for launches a GPU refuses.
 */
#include <cuda_runtime.h>

#include <cassert>
#include <cstring>
#include <string>

#include "emu_test.h"

namespace {

__global__ void fill(int *out, int n, int value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value;
}

template <class T, int SCALE>
__global__ void scaled(T *out, T v)
{
    out[threadIdx.x] = v * SCALE;
}

template <class T>
__global__ void deduced(T *out)
{
    out[threadIdx.x] = (T)threadIdx.x;
}

namespace inner {
__global__ void qualified(int *out) { out[threadIdx.x] = 100; }
} // namespace inner

__global__ void __launch_bounds__(64) bounded(int *out) { out[threadIdx.x] = 1; }

/* A parameter is each thread's own copy: changing it changes nothing for the others. */
__global__ void own_params(int *out, int base)
{
    base += (int)threadIdx.x;
    out[threadIdx.x] = base;
}

#define LAUNCH_FILL(ptr, count, v) fill<<<((count) + 31) / 32, 32>>>(ptr, count, v)

int *device_ints(int n)
{
    int *d = nullptr;
    cudaMalloc(&d, n * sizeof(int));
    cudaMemset(d, 0, n * sizeof(int));
    return d;
}

int at(const int *d, int i)
{
    int v = -1;
    cudaMemcpy(&v, d + i, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

void test_rewritten_forms()
{
    int *d = device_ints(100);
    const int n = 70;
    /* nested parentheses, a comment and a shift in the configuration */
    fill<<<dim3((n + 31) / 32, 1), (64 >> 1) /* threads <<< not a launch >>> */>>>(d, n, 5);
    CU_ASSERT_EQUAL(at(d, 69), 5);
    CU_ASSERT_EQUAL(at(d, 70), 0);
    /* arguments over several lines, with comments and a string holding <<< */
    const char *text = "k<<<1, 1>>>(x)";
    fill<<<1, 32>>>(d, /* count */ 10,
                    (int)strlen(text)); // value: 14
    CU_ASSERT_EQUAL(at(d, 9), 14);
    CU_ASSERT_EQUAL(std::string(text), "k<<<1, 1>>>(x)");
    /* explicit template arguments, a comma among them */
    scaled<int, 3><<<1, 4>>>(d, 7);
    CU_ASSERT_EQUAL(at(d, 3), 21);
    /* template arguments deduced from the call, as nvcc deduces them */
    deduced<<<1, 8>>>(d);
    CU_ASSERT_EQUAL(at(d, 7), 7);
    /* a kernel in a namespace; a kernel through a pointer; a launch in a macro */
    inner::qualified<<<1, 2>>>(d);
    CU_ASSERT_EQUAL(at(d, 1), 100);
    void (*kernel)(int *, int, int) = fill;
    kernel<<<1, 1, 0, 0>>>(d, 1, 55);
    CU_ASSERT_EQUAL(at(d, 0), 55);
    LAUNCH_FILL(d, 40, 9);
    CU_ASSERT_EQUAL(at(d, 39), 9);
    own_params<<<1, 4>>>(d, 10);
    CU_ASSERT_EQUAL(at(d, 0), 10);
    CU_ASSERT_EQUAL(at(d, 3), 13);
    /* launches inside lambdas, with the enclosing function's constants in the configuration
     * and the arguments, captured or (constexpr, so not odr-used) not */
    constexpr int blocks = 2, threads = 16;
    const int value = 31;
    auto by_reference = [&](int *p) { fill<<<blocks, threads>>>(p, blocks * threads, value); };
    by_reference(d);
    CU_ASSERT_EQUAL(at(d, 31), 31);
    auto no_capture = [](int *p) { fill<<<blocks, threads>>>(p, threads, blocks); };
    no_capture(d);
    CU_ASSERT_EQUAL(at(d, 15), 2);
    EXPECT_OK(cudaGetLastError());
    cudaFree(d);
}

void test_bad_configurations()
{
    int *d = device_ints(64);
    struct Case {
        dim3 grid, block;   /* the configuration */
        size_t smem;        /* dynamic shared memory */
        cudaError_t expect; /* what CUDA returns */
    };
    const Case cases[] = {
        {dim3(1), dim3(1025), 0, cudaErrorInvalidConfiguration},     /* too many threads */
        {dim3(1), dim3(32, 32, 2), 0, cudaErrorInvalidConfiguration}, /* 2048 threads */
        {dim3(1), dim3(1, 1, 65), 0, cudaErrorInvalidConfiguration},  /* z over 64 */
        {dim3(0), dim3(32), 0, cudaErrorInvalidConfiguration},        /* empty grid */
        {dim3(1, 65536), dim3(32), 0, cudaErrorInvalidConfiguration}, /* grid y over 65535 */
        {dim3(1), dim3(0), 0, cudaErrorInvalidConfiguration},         /* empty block */
        {dim3(1), dim3(32), 49 * 1024, cudaErrorInvalidValue},        /* shared over 48 KB */
    };
    for (const Case &c : cases) {
        StderrCapture cap;
        fill<<<c.grid, c.block, c.smem>>>(d, 64, 1);
        std::string err = cap.stop();
        CU_ASSERT_EQUAL(cudaPeekAtLastError(), c.expect);
        CU_ASSERT_EQUAL(cudaGetLastError(), c.expect);
        CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess); /* cleared, not sticky */
        CU_ASSERT(contains(err, "cuda-emu: launch of fill failed: "));
    }
    CU_ASSERT_EQUAL(at(d, 0), 0); /* nothing ran */
    /* More threads than __launch_bounds__ allows: the launch fails, nothing runs. */
    StderrCapture cap;
    bounded<<<1, 128>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    CU_ASSERT(contains(err, "compiled with __launch_bounds__(64)"));
    CU_ASSERT_EQUAL(at(d, 0), 0);
    bounded<<<1, 64>>>(d);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    CU_ASSERT_EQUAL(at(d, 63), 1);
    cudaFree(d);
}

__global__ void large_grid(unsigned *count)
{
    if (threadIdx.x == 0 && blockIdx.y == 1 && blockIdx.z == 2)
        atomicAdd(count, 1u);
}

void test_multidimensional_grid()
{
    unsigned *d, h = 0;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    EXPECT_OK(cudaMemset(d, 0, sizeof h));
    large_grid<<<dim3(300, 2, 3), dim3(2, 2)>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h, 300u * 2u); /* threadIdx.x == 0 in 2 of the 4 threads */
    cudaFree(d);
}

__constant__ int table[4];
__device__ int device_counter;

__global__ void use_symbols(int *out)
{
    out[threadIdx.x] = table[threadIdx.x % 4];
    if (threadIdx.x == 0)
        atomicAdd(&device_counter, 5);
}

void test_symbols_and_launch_kernel()
{
    const int values[4] = {3, 1, 4, 1};
    EXPECT_OK(cudaMemcpyToSymbol(table, values, sizeof values));
    int zero = 0, counter = -1;
    EXPECT_OK(cudaMemcpyToSymbol(device_counter, &zero, sizeof zero));
    CU_ASSERT_EQUAL(cudaMemcpyToSymbol(table, values, sizeof values, 4), cudaErrorInvalidValue);
    cudaGetLastError();
    int *d = device_ints(8);
    use_symbols<<<1, 8>>>(d);
    CU_ASSERT_EQUAL(at(d, 6), 4);
    EXPECT_OK(cudaMemcpyFromSymbol(&counter, device_counter, sizeof counter));
    CU_ASSERT_EQUAL(counter, 5);
    /* cudaLaunchKernel with an argument array, as CUDA's C++ API takes it */
    int n = 8, value = 77;
    void *args[] = {&d, &n, &value};
    EXPECT_OK(cudaLaunchKernel(fill, dim3(1), dim3(8), args, 0, 0));
    CU_ASSERT_EQUAL(at(d, 7), 77);
    cudaFree(d);
}

__global__ void checked(int *out)
{
    assert(threadIdx.x < 5);
    out[threadIdx.x] = 1;
}

void test_device_assert()
{
    int *d = device_ints(8);
    StderrCapture cap;
    checked<<<1, 8>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorAssert);
    CU_ASSERT(contains(err, "cuda-emu: error: device-side assertion failed in kernel checked, "
                            "block (0,0,0), thread (5,0,0)"));
    CU_ASSERT(contains(err, "Assertion `threadIdx.x < 5' failed."));
    EXPECT_OK(cudaDeviceReset());
}

CU_TestInfo tests[] = {
    {"assert in a kernel: cudaErrorAssert, with block and thread", test_device_assert},
    {"__constant__/__device__ symbols and cudaLaunchKernel", test_symbols_and_launch_kernel},
    {"rewritten launch forms run the right kernel", test_rewritten_forms},
    {"bad configurations fail with CUDA's codes", test_bad_configurations},
    {"a 3-D grid runs every block once", test_multidimensional_grid},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_launch_suite() { add_suite("launches", tests); }
