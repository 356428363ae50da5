// hello-probe.cu - what a fresh grading worker's first command waits for, in the worker's own
// order (grader/worker/worker_untrusted.c): the GPU's primary context made through the driver, then
// dlopen of a lab's shared object, the CUDA runtime's first call and a first launch; one line of
// milliseconds a process (tests/gpu/hello.sh runs it for each lab, alone and one per GPU at once).
//
//   hello-probe LAB.so [pre]     pre: the runtime's first call made before the object is loaded
#include "util.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

__global__ void null_kernel(void) {}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hello-probe LAB.so [pre]\n");
        return 2;
    }
    const int pre = argc > 2 && !strcmp(argv[2], "pre");
    const double t0 = wall_seconds();
    CUdevice d;
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d)) {
        fprintf(stderr, "hello-probe: no context (no GPU here?)\n");
        return 1;
    }
    const double t1 = wall_seconds();
    if (pre) {
        cudaStream_t s0;
        cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking);
    }
    const double t2 = wall_seconds();
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "hello-probe: %s\n", dlerror());
        return 1;
    }
    const double t3 = wall_seconds();
    cudaStream_t s;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const double t4 = wall_seconds();
    null_kernel<<<1, 1, 0, s>>>();
    e = e ? e : cudaStreamSynchronize(s);
    const double t5 = wall_seconds();
    printf("ctx %.1f pre %.1f dlopen %.1f rtinit %.1f launch %.1f hello %.1f err %d\n",
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3,
           (t5 - t2) * 1e3, (int)e);
    return 0;
}
