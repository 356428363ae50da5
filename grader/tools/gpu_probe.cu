/* gpu_probe.cu - what make doctor measures of this GPU that no lab's table holds: how long a
 * fresh process's first CUDA call takes (it makes the process's context: every speed check
 * runs the student's code in a fresh process), how fast host memory is pinned (lab 05 pins its
 * arrays: 256 MiB with cudaMallocHost), how long a launch and a synchronize take (an empty
 * kernel of one thread, launched and waited for, the median of 1000 after 100 to warm up), how
 * long a launch takes to issue when launches queue behind each other (1000 launches then one
 * wait, the median of 20 such runs), and how many copy engines the device reports
 * (cudaDevAttrAsyncEngineCount: copies in both directions at once need two, lab 05).
 *
 *   build/tools/gpu-probe [DEVICE]      prints "context_ms C", "pin_gbps P", "launch_sync_us X",
 *                                       "launch_queued_us Y", "copy_engines N"; exit 3 on a
 *                                       CUDA error (check.h) */
#include "check.h"
#include "stats.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

__global__ void empty_kernel(void) {}

enum { WARMUP = 100, SAMPLES = 1000, QUEUED = 1000, QUEUED_RUNS = 20 };
#define PIN_BYTES ((size_t)256 << 20)

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    const double start = wall_seconds();
    CUDA_CHECK(cudaSetDevice(dev));
    CUDA_CHECK(cudaFree(0)); /* the first call that needs the context: it is made here */
    const double context_ms = (wall_seconds() - start) * 1e3;
    void *pinned;
    const double pin0 = wall_seconds();
    CUDA_CHECK(cudaMallocHost(&pinned, PIN_BYTES));
    const double pin_gbps = PIN_BYTES / ((wall_seconds() - pin0) * 1e9);
    CUDA_CHECK(cudaFreeHost(pinned));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < WARMUP; i++) {
        empty_kernel<<<1, 1, 0, s>>>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
    static double us[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        const double t0 = wall_seconds();
        empty_kernel<<<1, 1, 0, s>>>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(s));
        us[i] = (wall_seconds() - t0) * 1e6;
    }
    const double launch_sync = stats_median(us, SAMPLES);
    for (int r = 0; r < QUEUED_RUNS; r++) {
        const double t0 = wall_seconds();
        for (int i = 0; i < QUEUED; i++)
            empty_kernel<<<1, 1, 0, s>>>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(s));
        us[r] = (wall_seconds() - t0) * 1e6 / QUEUED;
    }
    const double queued = stats_median(us, QUEUED_RUNS);
    int engines = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev));
    CUDA_CHECK(cudaStreamDestroy(s));
    printf("context_ms %.0f\npin_gbps %.1f\nlaunch_sync_us %.1f\nlaunch_queued_us %.2f\n"
           "copy_engines %d\n", context_ms, pin_gbps, launch_sync, queued, engines);
    return 0;
}
