// upload-race-probe.cu - whether a copy on a non-blocking stream, made right after cudaMemcpy
// from pageable host memory returns, can read the destination before the upload has landed
// (the harness uploads a correctness check's inputs so, then restores lab 09's C from C0 on its
// non-blocking stream: common/buffer.cu's dbuf_upload). Each trial: X poisoned (0xFF bytes, a
// NaN), a pageable upload of the trial's value into X with cudaMemcpy, then, on a non-blocking
// stream, X copied to Y; Y read back and its words that are not the trial's value counted.
// Mode "plain" copies at once; mode "synced" calls cudaDeviceSynchronize between (the fix).
//
//   nvcc -O2 -o upload-race-probe tests/gpu/upload-race-probe.cu
//   upload-race-probe [TRIALS] [FLOATS]      (default 200 trials of 4443600 floats: lab 09's C
//                                             at 2100 x 2116, 17 MiB)
// One line a mode: trials, trials with a word not yet landed, the first such word's index.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__);   \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    const int trials = argc > 1 ? atoi(argv[1]) : 200;
    const size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 4443600;
    const size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes), *back = (float *)malloc(bytes);
    float *x = NULL, *y = NULL;
    cudaStream_t s;
    if (!h || !back)
        return 1;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int synced = 0; synced < 2; synced++) {
        int bad_trials = 0;
        long long first_bad = -1;
        for (int t = 0; t < trials; t++) {
            const float v = 1.0f + (float)t / 1024.0f + (float)synced;
            for (size_t i = 0; i < n; i++)
                h[i] = v;
            CHECK(cudaMemset(x, 0xFF, bytes));
            CHECK(cudaMemset(y, 0, bytes));
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(x, h, bytes, cudaMemcpyHostToDevice));
            if (synced)
                CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));
            CHECK(cudaStreamSynchronize(s));
            CHECK(cudaMemcpy(back, y, bytes, cudaMemcpyDeviceToHost));
            long long at = -1;
            for (size_t i = 0; i < n && at < 0; i++)
                if (back[i] != v)
                    at = (long long)i;
            if (at >= 0) {
                bad_trials++;
                if (first_bad < 0 || at < first_bad)
                    first_bad = at;
            }
        }
        printf("%-7s %d trials of %zu floats: %d read the destination before the upload landed"
               " (lowest first word not landed: %lld, byte %lld)\n", synced ? "synced" : "plain",
               trials, n, bad_trials, first_bad, first_bad < 0 ? -1 : first_bad * 4);
    }
    return 0;
}
