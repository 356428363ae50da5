// hello-probe.cu - what a fresh grading worker's first command waits for, in the worker's own
// order (grader/run/worker_untrusted.c): the GPU's primary context made through the driver, then
// dlopen of a lab's shared object, the CUDA runtime's first call and a first launch; one line of
// milliseconds a process (tests/gpu/hello.sh runs it for each lab, alone and one per GPU at once).
//
//   hello-probe LAB.so [pre]     pre: the runtime's first call made before the object is loaded
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__global__ void null_kernel(void) {}
int main(int argc, char **argv)
{
    const int pre = argc > 2 && !strcmp(argv[2], "pre");
    double t0 = now();
    CUdevice d; CUcontext c;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d)) { fprintf(stderr, "no ctx\n"); return 1; }
    double t1 = now();
    if (pre) { cudaStream_t s0; cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking); }
    double t2 = now();
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    double t3 = now();
    cudaStream_t s;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    double t4 = now();
    null_kernel<<<1, 1, 0, s>>>();
    e = e ? e : cudaStreamSynchronize(s);
    double t5 = now();
    printf("ctx %.1f pre %.1f dlopen %.1f rtinit %.1f launch %.1f hello %.1f err %d\n", (t1-t0)*1e3, (t2-t1)*1e3,
           (t3-t2)*1e3, (t4-t3)*1e3, (t5-t4)*1e3, (t5-t2)*1e3, (int)e);
    return 0;
}
