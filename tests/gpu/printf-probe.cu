// printf-probe.cu - how long one kernel that prints a line per element takes on this GPU, by the
// size of the device printf buffer (what grader/worker/worker_untrusted.c sets a worker's to).
//   nvcc -O2 -o /tmp/pp tests/gpu/printf-probe.cu && /tmp/pp ROWS COLS [FIFO_BYTES (0: the default)] [REPS] >/dev/null
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>
__global__ void k(float *out, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        out[i] = i * 0.5f;
        printf("out[%llu] = %f\n", (unsigned long long)i, out[i]);
    }
}
int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 257, cols = argc > 2 ? atoi(argv[2]) : 4099;
    if (argc > 3 && atol(argv[3]) > 0) { cudaError_t e = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, (size_t)atol(argv[3])); if (e) fprintf(stderr, "setlimit: %s\n", cudaGetErrorString(e)); }
    size_t fifo = 0; cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize);
    float *d; cudaMalloc(&d, (size_t)rows * cols * 4);
    for (int rep = 0; rep < (argc > 4 ? atoi(argv[4]) : 2); rep++) {
        auto t0 = std::chrono::steady_clock::now();
        size_t n = (size_t)rows * cols; unsigned blocks = (unsigned)((n + 255) / 256);
        k<<<blocks < 65535 ? blocks : 65535, 256>>>(d, rows, cols);
        cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord(e);
        while (cudaEventQuery(e) == cudaErrorNotReady) {}
        auto t1 = std::chrono::steady_clock::now();
        cudaError_t err = cudaDeviceSynchronize();
        auto t2 = std::chrono::steady_clock::now();
        fflush(stdout);
        fprintf(stderr, "PROBE rows=%d cols=%d fifo=%zu kernel(event)=%.3f s sync(flush)=%.3f s err=%s\n", rows, cols, fifo,
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(), cudaGetErrorString(err));
    }
    return 0;
}
