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
#include <type_traits>
#include <vector>

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

/* 1D block tiling: each thread computes TM results of a column of C's
 * BM x BN tile, from BM x BK and BK x BN tiles of A and B in shared memory. */
template <int BM, int BN, int BK, int TM>
__global__ void sgemm_1d_tiling(int M, int N, int K, const float *A, const float *B, float *C)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int col = threadIdx.x % BN, row = threadIdx.x / BN;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int a_col = threadIdx.x % BK, a_row = threadIdx.x / BK;
    const int b_col = threadIdx.x % BN, b_row = threadIdx.x / BN;
    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_row * BK + a_col] = A[a_row * K + a_col];
        Bs[b_row * BN + b_col] = B[b_row * N + b_col];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int d = 0; d < BK; ++d) {
            float b = Bs[d * BN + col];
            for (int r = 0; r < TM; ++r)
                acc[r] += As[(row * TM + r) * BK + d] * b;
        }
        __syncthreads();
    }
    for (int r = 0; r < TM; ++r)
        C[(row * TM + r) * N + col] = acc[r];
}

/* The tile sizes are constants of this (non-template) function, captured by
 * reference by the lambdas that launch the kernel: g++ 12 used to stop on the
 * rewritten launch with an internal compiler error. */
void test_sgemm_launched_from_lambda()
{
    constexpr int BM = 16, BN = 16, BK = 4, TM = 4;
    const int M = 32, N = 48, K = 24;
    std::vector<float> a((size_t)M * K), b((size_t)K * N), c((size_t)M * N), want((size_t)M * N);
    for (int i = 0; i < M * K; ++i)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * N; ++i)
        b[i] = (float)(i % 5) * 0.5f;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k)
                s += a[i * K + k] * b[k * N + j];
            want[i * N + j] = s;
        }
    float *dA, *dB, *dC;
    EXPECT_OK(cudaMalloc(&dA, a.size() * sizeof(float)));
    EXPECT_OK(cudaMalloc(&dB, b.size() * sizeof(float)));
    EXPECT_OK(cudaMalloc(&dC, c.size() * sizeof(float)));
    EXPECT_OK(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 grid(N / BN, M / BM), block(BM * BN / TM);
    auto launch = [&]() { sgemm_1d_tiling<BM, BN, BK, TM><<<grid, block>>>(M, N, K, dA, dB, dC); };
    launch();
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (size_t i = 0; i < c.size(); ++i)
        wrong += c[i] != want[i];
    CU_ASSERT_EQUAL(wrong, 0);
    /* the same with a generic lambda and the configuration written in the launch */
    EXPECT_OK(cudaMemset(dC, 0, c.size() * sizeof(float)));
    auto launch_generic = [&](auto... args) {
        sgemm_1d_tiling<BM, BN, BK, TM><<<dim3(N / BN, M / BM), BM * BN / TM>>>(args...);
    };
    launch_generic(M, N, K, (const float *)dA, (const float *)dB, dC);
    EXPECT_OK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = 0;
    for (size_t i = 0; i < c.size(); ++i)
        wrong += c[i] != want[i];
    CU_ASSERT_EQUAL(wrong, 0);
    /* the kernel is still known by its address inside the lambda: 60 KB of
     * dynamic shared memory is over its default limit, 48 KB less the 512 bytes
     * of its static tiles (seen in the launches above) */
    auto launch_big = [&]() {
        sgemm_1d_tiling<BM, BN, BK, TM><<<grid, block, 60 * 1024>>>(M, N, K, dA, dB, dC);
    };
    StderrCapture cap;
    launch_big();
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidValue);
    CU_ASSERT(contains(err, "61440 bytes of dynamic shared memory; the limit is 48640"));
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
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

/* blockDim and gridDim are a dim3 wherever one is needed, and of a type without a constructor:
 * g++ hooks every read of a const variable whose type has one (and reloads it after every call),
 * where a GPU reads a register. */
static_assert(std::is_trivially_default_constructible<std::remove_cv_t<decltype(blockDim)>>::value &&
                  std::is_trivially_default_constructible<std::remove_cv_t<decltype(gridDim)>>::value,
              "blockDim and gridDim must be read-only to g++ (no hook on their reads)");
static_assert(sizeof blockDim == sizeof(dim3) && sizeof gridDim == sizeof(dim3), "a dim3's size");

__device__ unsigned dim_code(dim3 d) { return d.x + 10 * d.y + 100 * d.z; }

__global__ void dims_as_dim3(unsigned *out)
{
    dim3 a = blockDim;
    dim3 b(gridDim);
    uint3 c = blockDim;
    const dim3 &r = gridDim;
    dim3 e;
    e = blockDim;
    auto f = gridDim;
    if (threadIdx.x == 0 && blockIdx.x == 1 && blockIdx.y == 2) {
        out[0] = dim_code(a);
        out[1] = dim_code(b);
        out[2] = c.x + 10 * c.y + 100 * c.z;
        out[3] = dim_code(r);
        out[4] = dim_code(e);
        out[5] = f.x + 10 * f.y + 100 * f.z;
        out[6] = dim_code(blockDim) + dim_code(gridDim);
    }
}

void test_dims_as_dim3()
{
    unsigned *d, h[7] = {};
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    dims_as_dim3<<<dim3(2, 3), dim3(4, 2)>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    const unsigned block = 4 + 20 + 100, grid = 2 + 30 + 100;
    const unsigned want[7] = {block, grid, block, grid, block, grid, block + grid};
    for (int i = 0; i < 7; ++i)
        CU_ASSERT_EQUAL(h[i], want[i]);
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
    {"1D-tiling SGEMM launched from lambdas capturing its tile sizes", test_sgemm_launched_from_lambda},
    {"bad configurations fail with CUDA's codes", test_bad_configurations},
    {"a 3-D grid runs every block once", test_multidimensional_grid},
    {"blockDim and gridDim used as dim3 (copies, references, arguments)", test_dims_as_dim3},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_launch_suite() { add_suite("launches", tests); }
