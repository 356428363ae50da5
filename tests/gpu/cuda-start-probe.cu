// cuda-start-probe.cu - what a CUDA process's start costs: the driver's initialization, the
// GPU's context and its first allocation, each in seconds on one line (tests/gpu/cuda-start.sh
// runs it alone and one per GPU at once, and times each process whole, its end included).
//
//   cuda-start-probe [init]     init: cuInit alone, no context
//   PROBE_DEVICE=<n>            the device to make the context on (default 0, as CUDA numbers them)
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const int init_only = argc > 1 && !strcmp(argv[1], "init");
    const double t0 = now();
    if (cuInit(0) != CUDA_SUCCESS) {
        fprintf(stderr, "cuda-start-probe: cuInit failed (no GPU here?)\n");
        return 1;
    }
    const double t1 = now();
    double t2 = t1, t3 = t1;
    if (!init_only) {
        CUdevice d;
        CUcontext c;
        CUdeviceptr p;
        const char *dev = getenv("PROBE_DEVICE");
        if (cuDeviceGet(&d, dev ? atoi(dev) : 0) || cuDevicePrimaryCtxRetain(&c, d) || cuCtxSetCurrent(c)) {
            fprintf(stderr, "cuda-start-probe: no context\n");
            return 1;
        }
        t2 = now();
        if (cuMemAlloc(&p, 1 << 20) || cuMemsetD8(p, 0, 1 << 20) || cuCtxSynchronize()) {
            fprintf(stderr, "cuda-start-probe: the first allocation failed\n");
            return 1;
        }
        t3 = now();
    }
    printf("init %.3f context %.3f first_alloc %.3f\n", t1 - t0, t2 - t1, t3 - t2);
    return 0; /* the context ends with the process: the caller's wall time holds it */
}
