// ctx-beside-probe.cu - whether another process making its GPU context on the same GPU moves the
// times of work being timed there: the question before a grader starts a fresh worker's process
// while a speed check times (tests/gpu/ctx-beside.sh runs it).
//
//   ctx-beside-probe time SECONDS     times three kinds of work in turn for SECONDS, one line a
//                                     sample: "kind start end ms" (start and end: CLOCK_MONOTONIC
//                                     seconds around the sample; ms: CUDA events)
//                                       copy  1 GiB device to device (a kernel, memory-bound)
//                                       fma   a kernel of dependent FMAs (about 0.1 ms on an H200,
//                                             compute-bound)
//                                       d2h   256 MiB device to pinned host memory (the host link)
//   ctx-beside-probe ctx              makes the GPU's primary context (as a grading worker does at
//                                     its start), a 1 MiB allocation and a first launch, then
//                                     ends; one line: "ctx start end" around all of it
#include "check.h"
#include "util.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void copy_kernel(const float4 *in, float4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void fma_kernel(float *out, int steps)
{
    float x = threadIdx.x * 1e-3f, y = 1.0001f;
    for (int i = 0; i < steps; i++)
        x = fmaf(x, y, 1e-7f);
    if (x == 12345.f)
        out[threadIdx.x] = x;
}

__global__ void null_kernel(void) {}

static int make_context(void)
{
    const double t0 = wall_seconds();
    CUdevice d;
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d)) {
        fprintf(stderr, "ctx-beside-probe: no context (no GPU here?)\n");
        return 1;
    }
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, 1 << 20));
    null_kernel<<<1, 1>>>();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(p));
    printf("ctx %.6f %.6f\n", t0, wall_seconds());
    return 0;
}

static int time_work(double seconds)
{
    const size_t bytes = (size_t)1 << 30, host_bytes = (size_t)256 << 20;
    float4 *a, *b;
    float *h, *sink;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMalloc(&sink, 4096));
    CUDA_CHECK(cudaMemset(a, 1, bytes));
    CUDA_CHECK(cudaMallocHost(&h, host_bytes));
    memset(h, 0, host_bytes);
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    const char *kinds[3] = {"copy", "fma", "d2h"};
    const double until = wall_seconds() + seconds;
    for (long k = 0; wall_seconds() < until; k++) {
        const int kind = (int)(k % 3);
        const double t0 = wall_seconds();
        CUDA_CHECK(cudaEventRecord(e0, s));
        if (kind == 0)
            copy_kernel<<<sms * 8, 256, 0, s>>>(a, b, bytes / sizeof(float4));
        else if (kind == 1)
            fma_kernel<<<sms * 4, 256, 0, s>>>(sink, 1 << 14);
        else
            CUDA_CHECK(cudaMemcpyAsync(h, a, host_bytes, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaEventRecord(e1, s));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (k >= 30) /* (the first rounds: clocks and caches settling) */
            printf("%s %.6f %.6f %.4f\n", kinds[kind], t0, wall_seconds(), ms);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "ctx"))
        return make_context();
    if (argc >= 3 && !strcmp(argv[1], "time"))
        return time_work(atof(argv[2]));
    fprintf(stderr, "usage: ctx-beside-probe time SECONDS | ctx\n");
    return 2;
}
