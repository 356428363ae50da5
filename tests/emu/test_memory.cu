/*
 * test_memory.cu -- the host API: allocations and copies (with their error
 * codes), poisoned fresh memory and the uninitialized-read checks, streams
 * and events, the emulated device's properties, the occupancy API, vector
 * types and a few device intrinsics.
 */
#include <cuda_bf16.h> /* brings cuda_fp16.h with it, as NVIDIA's does */
#include <cuda_runtime.h>
#include <cuda_emu/testing.h>
#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "emu_test.h"

namespace {

void test_malloc_copy_errors()
{
    float *d = nullptr;
    std::vector<float> h(256, 1.0f), back(256);
    size_t free0, total, free1;
    EXPECT_OK(cudaMemGetInfo(&free0, &total));
    EXPECT_OK(cudaMalloc(&d, 256 * sizeof(float)));
    EXPECT_OK(cudaMemGetInfo(&free1, &total));
    CU_ASSERT_EQUAL(free0 - free1, 256 * sizeof(float));
    CU_ASSERT_EQUAL((uintptr_t)d % 256, 0u);
    /* A host pointer as the destination of a host-to-device copy. */
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaMemcpy(back.data(), h.data(), 1024, cudaMemcpyHostToDevice),
                    cudaErrorInvalidValue);
    /* A copy past the end of the allocation. */
    CU_ASSERT_EQUAL(cudaMemcpy(d + 1, h.data(), 1024, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CU_ASSERT_EQUAL(cudaFree(h.data()), cudaErrorInvalidValue);
    std::string err = cap.stop();
    CU_ASSERT(contains(err, "cudaMemcpy(cudaMemcpyHostToDevice) of 1024 bytes at "
                            "tests/emu/test_memory.cu:"));
    CU_ASSERT(contains(err, "the destination"));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidValue);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess); /* not sticky */
    EXPECT_OK(cudaMemcpy(d, h.data(), 1024, cudaMemcpyDefault));
    EXPECT_OK(cudaMemset(d + 128, 0, 128 * sizeof(float)));
    EXPECT_OK(cudaMemcpy(back.data(), d, 1024, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(back[127], 1.0f);
    CU_ASSERT_EQUAL(back[128], 0.0f);
    EXPECT_OK(cudaFree(d));
    CU_ASSERT_EQUAL(cudaFree(nullptr), cudaSuccess);
}

void test_pitched_2d_copies()
{
    float *d;
    size_t pitch = 0;
    EXPECT_OK(cudaMallocPitch(&d, &pitch, 10 * sizeof(float), 5));
    CU_ASSERT_EQUAL(pitch % 512, 0u);
    CU_ASSERT(pitch >= 10 * sizeof(float));
    float h[5][10], back[5][10];
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 10; ++c)
            h[r][c] = (float)(r * 10 + c);
    EXPECT_OK(cudaMemcpy2D(d, pitch, h, sizeof h[0], sizeof h[0], 5, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy2D(back, sizeof back[0], d, pitch, sizeof back[0], 5, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(memcmp(h, back, sizeof h), 0);
    CU_ASSERT_EQUAL(cudaMemcpy2D(d, 8, h, sizeof h[0], sizeof h[0], 5, cudaMemcpyHostToDevice),
                    cudaErrorInvalidPitchValue);
    cudaGetLastError();
    /* cudaMemset2DAsync: the first 6 floats of rows 1 to 3 zeroed, the rest as they were */
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaMemset2DAsync((char *)d + pitch, pitch, 0, 6 * sizeof(float), 3, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaMemcpy2D(back, sizeof back[0], d, pitch, sizeof back[0], 5, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 10; ++c)
            wrong += back[r][c] != (r >= 1 && r <= 3 && c < 6 ? 0.0f : h[r][c]);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(cudaMemset2DAsync(d, 8, 0, sizeof h[0], 5, s), cudaErrorInvalidPitchValue);
    cudaGetLastError();
    EXPECT_OK(cudaStreamDestroy(s));
    cudaFree(d);
}

/* 1024 threads each add 1 to one __half and (1, 0.5) to one __half2, 200 threads 1 to one
 * __nv_bfloat16 and (1, 2) to one __nv_bfloat162: every sum exact in its type, so a lost
 * update shows. */
__global__ void half_atomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2)
{
    atomicAdd(h, __float2half(1.0f));
    atomicAdd(h2, __floats2half2_rn(1.0f, 0.5f));
    if (blockIdx.x * blockDim.x + threadIdx.x < 200) {
        atomicAdd(b, __float2bfloat16(1.0f));
        atomicAdd_block(b2, __nv_bfloat162(__float2bfloat16(1.0f), __float2bfloat16(2.0f)));
    }
}

void test_half_atomics()
{
    struct Sums {
        __half h;
        __half2 h2;
        __nv_bfloat16 b;
        __nv_bfloat162 b2;
    } *d, out;
    EXPECT_OK(cudaMalloc(&d, sizeof *d));
    EXPECT_OK(cudaMemset(d, 0, sizeof *d));
    half_atomics<<<4, 256>>>(&d->h, &d->h2, &d->b, &d->b2);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaMemcpy(&out, d, sizeof out, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(__half2float(out.h), 1024.0f);
    CU_ASSERT_EQUAL(__low2float(out.h2), 1024.0f);
    CU_ASSERT_EQUAL(__high2float(out.h2), 512.0f);
    CU_ASSERT_EQUAL(__bfloat162float(out.b), 200.0f);
    CU_ASSERT_EQUAL(__bfloat162float(out.b2.x), 200.0f);
    CU_ASSERT_EQUAL(__bfloat162float(out.b2.y), 400.0f);
    cudaFree(d);
}

__global__ void accumulate(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += in[i];
}

void test_fresh_device_memory_is_poison()
{
    float *d, h[4];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    cuda_emu::set_checks(false);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    cuda_emu::set_checks(true);
    unsigned bits;
    memcpy(&bits, &h[2], 4);
    CU_ASSERT_EQUAL(bits, 0xffffffffu);
    CU_ASSERT(std::isnan(h[2]));
    cudaFree(d);
}

void test_uninitialized_reads_are_reported()
{
    float *out, *in, h[64];
    EXPECT_OK(cudaMalloc(&out, sizeof h));
    EXPECT_OK(cudaMalloc(&in, sizeof h));
    EXPECT_OK(cudaMemset(in, 0, sizeof h));
    /* In a kernel: += on memory nothing wrote is a warning; copying the
     * result to the host says where the poison came from. */
    StderrCapture cap;
    accumulate<<<1, 64>>>(out, in, 64);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaSuccess);
    CU_ASSERT(contains(err, "cuda-emu: warning: read of uninitialized device memory in kernel "
                            "accumulate, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "reads 4 bytes at byte offset 0 of a 256-byte cudaMalloc allocation "
                            "(made at tests/emu/test_memory.cu:"));
    StderrCapture cap1;
    CU_ASSERT_EQUAL(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    err = cap1.stop();
    CU_ASSERT(std::isnan(h[0]));
    CU_ASSERT(contains(err, "cuda-emu: warning: cudaMemcpy copies results computed by threads "
                            "that read uninitialized memory"));
    CU_ASSERT(contains(err, "the first such read: kernel accumulate, block (0,0,0), thread "
                            "(0,0,0), at tests/emu/test_memory.cu:"));
    EXPECT_OK(cudaDeviceReset());
    /* On the host: copying back bytes nothing wrote. */
    EXPECT_OK(cudaMalloc(&out, sizeof h));
    EXPECT_OK(cudaMemset(out, 0, 60 * sizeof(float)));
    StderrCapture cap2;
    /* A warning, not an error: on a GPU the copy succeeds (the program may
     * never look at those bytes); the poison shows in the values. */
    CU_ASSERT_EQUAL(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    err = cap2.stop();
    CU_ASSERT(std::isnan(h[63]));
    CU_ASSERT(contains(err, "cuda-emu: warning: cudaMemcpy copies device memory that was never "
                            "written"));
    CU_ASSERT(contains(err, "16 of the 256 bytes copied were never written (the first is 1 byte "
                            "at byte offset 240 of a 256-byte cudaMalloc allocation"));
    EXPECT_OK(cudaDeviceReset());
}

__global__ void busy_wait(long long ns)
{
    long long start = clock64();
    while (clock64() - start < ns) {
    }
}

void test_streams_and_events()
{
    cudaStream_t a, b;
    cudaEvent_t start, stop, untimed, never;
    EXPECT_OK(cudaStreamCreate(&a));
    EXPECT_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    unsigned flags = 9;
    EXPECT_OK(cudaStreamGetFlags(b, &flags));
    CU_ASSERT_EQUAL(flags, (unsigned)cudaStreamNonBlocking);
    EXPECT_OK(cudaEventCreate(&start));
    EXPECT_OK(cudaEventCreate(&stop));
    EXPECT_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    EXPECT_OK(cudaEventCreate(&never));
    CU_ASSERT_EQUAL(cudaEventQuery(never), cudaSuccess); /* never recorded: complete */
    EXPECT_OK(cudaEventRecord(start, a));
    busy_wait<<<1, 1, 0, a>>>(20 * 1000 * 1000);
    EXPECT_OK(cudaEventRecord(stop, a));
    EXPECT_OK(cudaEventRecord(untimed, a));
    EXPECT_OK(cudaStreamWaitEvent(b, stop, 0));
    CU_ASSERT_EQUAL(cudaStreamQuery(a), cudaSuccess);
    CU_ASSERT_EQUAL(cudaEventQuery(stop), cudaSuccess);
    EXPECT_OK(cudaEventSynchronize(stop));
    float ms = 0;
    EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
    CU_ASSERT(ms >= 20.0f && ms < 2000.0f);
    CU_ASSERT_EQUAL(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
    CU_ASSERT_EQUAL(cudaEventElapsedTime(&ms, never, stop), cudaErrorInvalidResourceHandle);
    /* cudaEventRecordWithFlags: the default flag and the external one record as cudaEventRecord
     * outside a capture; any other flag is CUDA's error */
    EXPECT_OK(cudaEventRecordWithFlags(start, a, cudaEventRecordDefault));
    busy_wait<<<1, 1, 0, a>>>(5 * 1000 * 1000);
    EXPECT_OK(cudaEventRecordWithFlags(stop, a, cudaEventRecordExternal));
    EXPECT_OK(cudaEventSynchronize(stop));
    EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
    CU_ASSERT(ms >= 5.0f && ms < 2000.0f);
    CU_ASSERT_EQUAL(cudaEventRecordWithFlags(stop, a, 4), cudaErrorInvalidValue);
    cudaGetLastError();
    /* The default streams are always valid; a destroyed stream is not. */
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_OK(cudaStreamSynchronize(cudaStreamLegacy));
    EXPECT_OK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_OK(cudaStreamDestroy(b));
    CU_ASSERT_EQUAL(cudaStreamQuery(b), cudaErrorInvalidResourceHandle);
    StderrCapture cap;
    busy_wait<<<1, 1, 0, b>>>(0);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    CU_ASSERT(contains(err, "is not a live stream"));
    EXPECT_OK(cudaEventDestroy(start));
    CU_ASSERT_EQUAL(cudaEventDestroy(start), cudaErrorInvalidResourceHandle);
    cudaEventDestroy(stop);
    cudaEventDestroy(untimed);
    cudaEventDestroy(never);
    cudaStreamDestroy(a);
    cudaGetLastError();
}

__global__ void write_value(int *p, int v) { *p = v; }

void host_step(void *data)
{
    std::vector<int> *log = static_cast<std::vector<int> *>(data);
    log->push_back((int)log->size());
}

void test_stream_order()
{
    cudaStream_t s;
    int *d, h = 0;
    std::vector<int> log;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaMalloc(&d, sizeof(int)));
    /* A kernel, a host function and a copy on one stream run in issue order. */
    write_value<<<1, 1, 0, s>>>(d, 7);
    EXPECT_OK(cudaLaunchHostFunc(s, host_step, &log));
    EXPECT_OK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaLaunchHostFunc(s, host_step, &log));
    EXPECT_OK(cudaStreamSynchronize(s));
    CU_ASSERT_EQUAL(h, 7);
    CU_ASSERT_EQUAL(log.size(), 2u);
    cudaFree(d);
    cudaStreamDestroy(s);
}

__global__ void some_kernel(float *p) { p[threadIdx.x] = 0; }
/* A minimum of 1 block of 1024 threads per SM lets nvcc give each thread 64 registers: the
 * emulator takes it to use them, so one such block fills an SM's register file. */
__global__ void __launch_bounds__(1024, 1) bounded_kernel(float *p) { p[threadIdx.x] = 0; }

void test_device_properties()
{
    int count = 0, dev = -1, v = 0;
    EXPECT_OK(cudaGetDeviceCount(&count));
    CU_ASSERT_EQUAL(count, 1);
    EXPECT_OK(cudaGetDevice(&dev));
    CU_ASSERT_EQUAL(dev, 0);
    CU_ASSERT_EQUAL(cudaSetDevice(1), cudaErrorInvalidDevice);
    cudaGetLastError();
    cudaDeviceProp p;
    EXPECT_OK(cudaGetDeviceProperties(&p, 0));
    CU_ASSERT_STRING_EQUAL(p.name, "CUDA CPU emulator (cuda-emu)");
    CU_ASSERT_EQUAL(p.major, 9);
    CU_ASSERT_EQUAL(p.minor, 0);
    CU_ASSERT_EQUAL(p.multiProcessorCount, 4);
    CU_ASSERT_EQUAL(p.warpSize, 32);
    CU_ASSERT_EQUAL(p.maxThreadsPerBlock, 1024);
    CU_ASSERT_EQUAL(p.maxThreadsPerMultiProcessor, 2048);
    CU_ASSERT_EQUAL(p.sharedMemPerBlock, 48u * 1024);
    CU_ASSERT_EQUAL(p.l2CacheSize, 4 * 1024 * 1024);
    CU_ASSERT_EQUAL(p.asyncEngineCount, 2);
    EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    CU_ASSERT_EQUAL(v, p.multiProcessorCount);
    EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CU_ASSERT_EQUAL((size_t)v, p.sharedMemPerBlockOptin);
    EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
    CU_ASSERT_EQUAL(v, 1000000);
    EXPECT_OK(cudaDriverGetVersion(&v));
    CU_ASSERT_EQUAL(v, 13000);
    EXPECT_OK(cudaRuntimeGetVersion(&v));
    CU_ASSERT_EQUAL(v, 13000);
    int blocks = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, some_kernel, 256, 0));
    CU_ASSERT_EQUAL(blocks, 8);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, some_kernel, 1024, 0));
    CU_ASSERT_EQUAL(blocks, 2);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, some_kernel, 32, 0));
    CU_ASSERT_EQUAL(blocks, 32);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, some_kernel, 100, 0));
    CU_ASSERT_EQUAL(blocks, 16); /* 4 warps per block */
    EXPECT_OK(cudaFuncSetAttribute(some_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   100 * 1024));
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, some_kernel, 256, 100 * 1024));
    CU_ASSERT_EQUAL(blocks, 2);
    int min_grid = 0, block = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, some_kernel));
    CU_ASSERT_EQUAL(block, 1024);
    CU_ASSERT_EQUAL(min_grid, 8);
    /* __launch_bounds__(1024, 1), known before the kernel's first launch */
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded_kernel, 1024, 0));
    CU_ASSERT_EQUAL(blocks, 1);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded_kernel, 512, 0));
    CU_ASSERT_EQUAL(blocks, 2); /* 64 registers x 512 threads: half the register file */
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, bounded_kernel));
    CU_ASSERT_EQUAL(attr.numRegs, 64);
    EXPECT_OK(cudaFuncGetAttributes(&attr, some_kernel));
    CU_ASSERT_EQUAL(attr.numRegs, 32);
    /* The search NVIDIA's header makes, with dynamic shared memory by block size: 128 bytes a
     * thread make 448 threads the best (4 blocks of 57,344 + 1,024 bytes: 1,792 threads). */
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, some_kernel,
                                                             [](int b) { return (size_t)b * 128; }));
    CU_ASSERT_EQUAL(block, 448);
    CU_ASSERT_EQUAL(min_grid, 16);
    /* The limits read back what was set, and CUDA's defaults after a reset. */
    size_t limit = 0;
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    CU_ASSERT_EQUAL(limit, 8u << 20);
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20));
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    CU_ASSERT_EQUAL(limit, 64u << 20);
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    CU_ASSERT_EQUAL(limit, 4096u);
    cudaFuncCache cache = cudaFuncCachePreferL1;
    EXPECT_OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    EXPECT_OK(cudaDeviceGetCacheConfig(&cache));
    CU_ASSERT_EQUAL(cache, cudaFuncCachePreferShared);
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    CU_ASSERT_EQUAL(limit, 1024u);
    EXPECT_OK(cudaDeviceGetCacheConfig(&cache));
    CU_ASSERT_EQUAL(cache, cudaFuncCachePreferNone);
    /* The one device: chosen for any properties, its PCI address its attributes' */
    int chosen = -1;
    EXPECT_OK(cudaChooseDevice(&chosen, &p));
    CU_ASSERT_EQUAL(chosen, 0);
    char bus[16];
    EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    CU_ASSERT_STRING_EQUAL(bus, "0000:00:00.0");
}

void test_error_names()
{
    CU_ASSERT_STRING_EQUAL(cudaGetErrorName(cudaErrorInvalidConfiguration),
                           "cudaErrorInvalidConfiguration");
    CU_ASSERT_STRING_EQUAL(cudaGetErrorString(cudaErrorInvalidConfiguration),
                           "invalid configuration argument");
    CU_ASSERT_STRING_EQUAL(cudaGetErrorString(cudaErrorLaunchFailure), "unspecified launch failure");
    CU_ASSERT_STRING_EQUAL(cudaGetErrorString(cudaSuccess), "no error");
    CU_ASSERT_STRING_EQUAL(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
}

static_assert(alignof(float4) == 16 && sizeof(float4) == 16, "float4");
static_assert(alignof(float2) == 8 && sizeof(float3) == 12 && alignof(float3) == 4, "float2/3");
static_assert(alignof(int4) == 16 && alignof(uint4) == 16 && alignof(int2) == 8, "int vectors");
static_assert(alignof(double2) == 16 && alignof(char4) == 4 && alignof(short2) == 4, "others");
static_assert(sizeof(dim3) == 12, "dim3");

__global__ void intrinsics(unsigned *out, const float *in)
{
    out[0] = __float_as_uint(__ldg(in));
    out[1] = __float_as_uint(__fmaf_rn(in[0], 2.0f, 1.0f));
    out[2] = (unsigned)__popc(0xf0f0u);
    out[3] = (unsigned)__clz(1);
    out[4] = __brev(1u);
    out[5] = (unsigned)min(-3, 4) ^ (unsigned)max(2u, 7u);
    out[6] = __float_as_uint(fmaxf(in[0], 3.0f));
    float4 v = make_float4(1, 2, 3, 4);
    out[7] = (unsigned)(v.x + v.y + v.z + v.w);
    long long t0 = clock64();
    __threadfence();
    out[8] = clock64() >= t0;
}

/* CUDA's own functions the C library lacks (cuda_emu/device.h): a file that uses them builds here
 * as with nvcc, and computes what a GPU computes. */
__global__ void cuda_only_functions(float *f, int *i, unsigned *u, double *d)
{
    __builtin_assume(i[0] >= 0); /* never evaluated: i[0] stays as written */
    __prof_trigger(1);
    float s, c;
    sincospif(0.25f, &s, &c);
    f[0] = sinpif(0.5f), f[1] = cospif(1.0f), f[2] = sinpif(12345678.0f), f[3] = s - c;
    f[4] = rhypotf(3.0f, 4.0f), f[5] = norm3df(1.0f, 2.0f, 2.0f), f[6] = rnorm4df(1.0f, 1.0f, 1.0f, 1.0f);
    f[7] = rcbrtf(8.0f), f[8] = normcdff(0.0f), f[9] = erfinvf(erff(0.3f)), f[10] = normcdfinvf(0.975f);
    i[1] = __dp4a(0x01020304, 0x01010101, 10), u[0] = __dp4a(0xffffffffu, 0x01010101u, 0u);
    i[2] = __dp2a_lo(0x00020003, 0x00000405, 1), i[3] = __dp2a_hi(0x00020003, 0x04050000, 1);
    u[1] = __sad(-3, 4, 10u), u[2] = __usad(3u, 10u, 1u);
    u[3] = __funnelshift_lc(0x80000000u, 1u, 40u), u[4] = __funnelshift_rc(0u, 0x12345678u, 40u);
    d[0] = __hiloint2double(__double2hiint(2.5), __double2loint(2.5));
}

void test_cuda_only_functions()
{
    float *f;
    int *i;
    unsigned *u;
    double *d;
    EXPECT_OK(cudaMallocManaged(&f, 16 * sizeof *f));
    EXPECT_OK(cudaMallocManaged(&i, 16 * sizeof *i));
    EXPECT_OK(cudaMallocManaged(&u, 16 * sizeof *u));
    EXPECT_OK(cudaMallocManaged(&d, 16 * sizeof *d));
    i[0] = 7;
    cuda_only_functions<<<1, 1>>>(f, i, u, d);
    EXPECT_OK(cudaDeviceSynchronize());
    CU_ASSERT_EQUAL(i[0], 7);
    CU_ASSERT_EQUAL(f[0], 1.0f);
    CU_ASSERT_EQUAL(f[1], -1.0f);
    CU_ASSERT_EQUAL(f[2], 0.0f); /* an integer's: exactly 0, however large */
    CU_ASSERT_DOUBLE_EQUAL(f[3], 0.0, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(f[4], 0.2, 1e-7);
    CU_ASSERT_EQUAL(f[5], 3.0f);
    CU_ASSERT_EQUAL(f[6], 0.5f);
    CU_ASSERT_EQUAL(f[7], 0.5f);
    CU_ASSERT_EQUAL(f[8], 0.5f);
    CU_ASSERT_DOUBLE_EQUAL(f[9], 0.3, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(f[10], 1.959964, 1e-5);
    CU_ASSERT_EQUAL(i[1], 20);
    CU_ASSERT_EQUAL(u[0], 1020u);
    CU_ASSERT_EQUAL(i[2], 24);
    CU_ASSERT_EQUAL(i[3], 24);
    CU_ASSERT_EQUAL(u[1], 17u);
    CU_ASSERT_EQUAL(u[2], 8u);
    CU_ASSERT_EQUAL(u[3], 0x80000000u); /* a shift clamped to 32 */
    CU_ASSERT_EQUAL(u[4], 0x12345678u);
    CU_ASSERT_EQUAL(d[0], 2.5);
    cudaFree(f), cudaFree(i), cudaFree(u), cudaFree(d);
}

void test_device_intrinsics()
{
    float x = 1.5f, *din;
    unsigned *dout, h[9];
    EXPECT_OK(cudaMalloc(&din, sizeof x));
    EXPECT_OK(cudaMalloc(&dout, sizeof h));
    EXPECT_OK(cudaMemcpy(din, &x, sizeof x, cudaMemcpyHostToDevice));
    intrinsics<<<1, 1>>>(dout, din);
    EXPECT_OK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
    float f;
    memcpy(&f, &h[0], 4);
    CU_ASSERT_EQUAL(f, 1.5f);
    memcpy(&f, &h[1], 4);
    CU_ASSERT_EQUAL(f, 4.0f);
    CU_ASSERT_EQUAL(h[2], 8u);
    CU_ASSERT_EQUAL(h[3], 31u);
    CU_ASSERT_EQUAL(h[4], 0x80000000u);
    CU_ASSERT_EQUAL(h[5], (unsigned)-3 ^ 7u);
    memcpy(&f, &h[6], 4);
    CU_ASSERT_EQUAL(f, 3.0f);
    CU_ASSERT_EQUAL(h[7], 10u);
    CU_ASSERT_EQUAL(h[8], 1u);
    cudaFree(din);
    cudaFree(dout);
}


/* ---- Memory a kernel can and cannot reach --------------------------------- */

__device__ int reach_device_var[4];
__constant__ int reach_constant[4] = {1, 2, 3, 4};

/* Copies N ints from IN to OUT. */
__global__ void copy_ints(int *out, const int *in, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = in[i];
}

/* Memory every kind a GPU kernel may use, read and written by one launch:
 * a __device__ and a __constant__ variable, and a block of its own heap. */
__global__ void own_memory(int *out)
{
    int *mine = static_cast<int *>(malloc(4 * sizeof(int)));
    for (int i = 0; i < 4; ++i) {
        mine[i] = reach_constant[i];
        reach_device_var[i] = mine[i] * 10;
    }
    out[0] = reach_device_var[3] + mine[0];
    free(mine);
}

/* A kernel given host memory (malloc, a std::vector, a local variable, a page
 * the program mapped itself, or an address past every allocation) fails with
 * cudaErrorIllegalAddress and a report naming the memory and the line; pinned
 * and registered host memory, __device__ and __constant__ variables and the
 * kernel's own heap all work. */
void test_unreachable_memory_is_reported()
{
    const int n = 64;
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
    EXPECT_OK(cudaMemset(d, 0, n * sizeof(int)));
    /* What a kernel can reach. */
    int *pinned = nullptr;
    EXPECT_OK(cudaMallocHost(&pinned, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
        pinned[i] = i;
    copy_ints<<<1, 32>>>(d, pinned, n);
    EXPECT_OK(cudaDeviceSynchronize());
    copy_ints<<<1, 32>>>(pinned, d, n);
    EXPECT_OK(cudaDeviceSynchronize());
    CU_ASSERT_EQUAL(pinned[n - 1], n - 1);
    std::vector<int> registered(n, 7);
    EXPECT_OK(cudaHostRegister(registered.data(), n * sizeof(int), cudaHostRegisterMapped));
    copy_ints<<<1, 32>>>(d, registered.data(), n);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaHostUnregister(registered.data()));
    own_memory<<<1, 1>>>(d);
    EXPECT_OK(cudaDeviceSynchronize());
    int h = 0;
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h, 41);
    EXPECT_OK(cudaFreeHost(pinned));

    /* What it cannot: each a sticky cudaErrorIllegalAddress, as on a GPU. */
    std::vector<int> host(n, 1);
    int local[n] = {};
    void *page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *gone = mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CU_ASSERT_FATAL(page != MAP_FAILED && gone != MAP_FAILED);
    munmap(gone, 1 << 16); /* an address far from every allocation, mapped to nothing */
    enum Place { device, vector, stack, mapped, unmapped };
    struct Case {
        Place out, in;
        const char *expect;
    };
    const Case cases[] = {
        {device, vector,
         "cuda-emu: error: a kernel reads memory that is not device memory in kernel copy_ints, "
         "block (0,0,0), thread (0,0,0)"},
        {device, vector, "into a 256-byte block of host memory (malloc, new or a std::vector) "
                         "allocated at tests/emu/test_memory.cu:"},
        {stack, device, "cuda-emu: error: a kernel writes memory that is not device memory"},
        {stack, device, "on the stack of a host thread (a local variable of host code)"},
        {mapped, device, "which belongs to no allocation"},
        {device, unmapped, "which belongs to no allocation"},
    };
    for (const Case &c : cases) {
        EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
        EXPECT_OK(cudaMemset(d, 0, n * sizeof(int)));
        auto at = [&](Place p) -> int * {
            switch (p) {
            case device: return d;
            case vector: return host.data();
            case stack: return local;
            case mapped: return static_cast<int *>(page);
            default: return static_cast<int *>(gone);
            }
        };
        StderrCapture cap;
        copy_ints<<<1, 32>>>(at(c.out), at(c.in), n);
        std::string err = cap.stop();
        CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
        CU_ASSERT(contains(err, c.expect));
        CU_ASSERT(contains(err, "at tests/emu/test_memory.cu:"));
        EXPECT_OK(cudaDeviceReset());
    }
    munmap(page, 4096);
}

CU_TestInfo tests[] = {
    {"cudaMalloc, cudaMemcpy, cudaMemset and their errors", test_malloc_copy_errors},
    {"cudaMallocPitch, cudaMemcpy2D and cudaMemset2DAsync", test_pitched_2d_copies},
    {"atomicAdd of __half, __half2, __nv_bfloat16 and __nv_bfloat162", test_half_atomics},
    {"fresh device memory holds the 0xff poison", test_fresh_device_memory_is_poison},
    {"uninitialized reads: in a kernel and by a copy", test_uninitialized_reads_are_reported},
    {"streams and events: queries, elapsed time, errors", test_streams_and_events},
    {"a stream runs kernels, copies and host functions in order", test_stream_order},
    {"device properties, attributes and occupancy", test_device_properties},
    {"error names and strings", test_error_names},
    {"vector types and device intrinsics", test_device_intrinsics},
    {"CUDA's math and integer functions the C library lacks", test_cuda_only_functions},
    {"a kernel may use only memory a GPU can reach", test_unreachable_memory_is_reported},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_memory_suite() { add_suite("host API and memory", tests); }
