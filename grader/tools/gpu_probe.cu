/* gpu_probe.cu - what make doctor measures of this GPU that no lab's table holds: how long a
 * launch and a synchronize take (an empty kernel of one thread, launched and waited for, the
 * median of 1000 after 100 to warm up), how long a launch takes to issue when launches queue
 * behind each other (1000 launches then one wait, the median of 20 such runs), and how many
 * copy engines the device reports (cudaDevAttrAsyncEngineCount: copies in both directions at
 * once need two, lab 05).
 *
 *   build/tools/gpu-probe [DEVICE]      prints "launch_sync_us X", "launch_queued_us Y",
 *                                       "copy_engines N"; exit 3 on a CUDA error (check.h) */
#include "check.h"
#include "stats.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

__global__ void empty_kernel(void) {}

enum { WARMUP = 100, SAMPLES = 1000, QUEUED = 1000, QUEUED_RUNS = 20 };

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    CUDA_CHECK(cudaSetDevice(dev));
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
    printf("launch_sync_us %.1f\nlaunch_queued_us %.2f\ncopy_engines %d\n", launch_sync, queued,
           engines);
    return 0;
}
