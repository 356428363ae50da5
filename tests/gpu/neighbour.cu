/* neighbour.cu - another program on the same GPU while grading runs, as on a student's desktop.
 *
 *   neighbour compositor SECONDS   a 60 Hz loop of short kernels (about 1 ms each), as a
 *                                  desktop compositor or a browser draws
 *   neighbour compute SECONDS      a steady stream of 5 ms kernels, as someone's job
 *
 * Prints how many kernels it ran. tests/gpu/run-all.sh shared-gpu grades beside it. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Spin for about `cycles` clock cycles on each of a few blocks. */
__global__ void busy(long long cycles, float *sink)
{
    const long long start = clock64();
    float x = threadIdx.x;
    while (clock64() - start < cycles)
        x = x * 0.999f + 1.0f;
    if (x == 12345.f)
        sink[0] = x;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "compositor") && strcmp(argv[1], "compute"))) {
        fprintf(stderr, "usage: neighbour compositor|compute SECONDS\n");
        return 2;
    }
    const int compositor = !strcmp(argv[1], "compositor");
    const double seconds = atof(argv[2]);
    int clock_khz = 0, sms = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    float *sink;
    if (cudaMalloc(&sink, 4) != cudaSuccess) {
        fprintf(stderr, "neighbour: no GPU\n");
        return 1;
    }
    /* a compositor touches a few SMs for about 1 ms; a job fills every SM for 5 ms */
    const long long cycles = (long long)clock_khz * (compositor ? 1 : 5);
    const int blocks = compositor ? (sms / 8 > 0 ? sms / 8 : 1) : 2 * sms;
    const double start = now();
    long kernels = 0;
    while (now() - start < seconds) {
        const double frame = now();
        busy<<<blocks, 256>>>(cycles, sink);
        cudaDeviceSynchronize();
        kernels++;
        if (compositor) {
            const double left = 1.0 / 60 - (now() - frame);
            if (left > 0)
                usleep((useconds_t)(left * 1e6));
        }
    }
    printf("neighbour %s: %ld kernels in %.0f s\n", argv[1], kernels, now() - start);
    return 0;
}
