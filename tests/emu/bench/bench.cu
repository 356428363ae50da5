/* tests/emu/bench/bench.cu -- the emulator's cost on four kernels (make bench-emu).
 * Prints, for each kernel, the median over REPS launches of the CPU nanoseconds per thread
 * (empty kernel), per element (grid-stride copy, block reduction with barriers) or per step
 * (chain: each thread's loop of dependent fused multiply-adds, a loop with no memory access):
 *   empty <tab> ns/thread <tab> N
 * Built by tests/emu/bench.sh with each emulator build it compares. */
#include <cuda_runtime.h>
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__global__ void empty_kernel() {}

__global__ void copy_kernel(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[i];
}

__global__ void reduce_kernel(const float *in, float *out, int n)
{
    __shared__ float s[256];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

/* A loop with no memory access, as lab 03's chains: what a turn of a loop costs beside its
 * arithmetic (each step waits for the one before). In a function of its own, as a lab's
 * __device__ helper often is: the loop's condition is its first branch. */
__device__ __noinline__ float chain(float y, int steps)
{
    for (int k = 0; k < steps; k++)
        y = fmaf(y, 0.999f, 0.25f);
    return y;
}

__global__ void chain_kernel(const float *in, float *out, int n, int steps)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = chain(in[i], steps);
}

/* The process's CPU time (user and system), not the wall clock: on a machine others share,
 * the time spent waiting for a core is not the emulator's. CUDA_EMU_WORKERS=1 keeps every
 * block on this thread. */
static double now_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    const int reps = argc > 2 ? atoi(argv[2]) : 5;
    const int n = 1 << 20;           /* elements of the copy and the reduction */
    const int threads = 256, blocks = 256;
    float *in, *out, *part;
    check(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&part, blocks * sizeof(float)), "cudaMalloc");
    std::vector<float> h(n, 1.0f);
    check(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    std::string w(which);
    if (w == "all" || w == "empty") {
        const int eb = 1024, et = 256; /* 262144 threads */
        std::vector<double> t;
        empty_kernel<<<eb, et>>>();
        check(cudaDeviceSynchronize(), "empty");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            empty_kernel<<<eb, et>>>();
            check(cudaDeviceSynchronize(), "empty");
            t.push_back((now_ns() - t0) / ((double)eb * et));
        }
        printf("empty\t%.1f\t%d\n", median(t), eb * et);
    }
    if (w == "all" || w == "copy") {
        std::vector<double> t;
        copy_kernel<<<blocks, threads>>>(in, out, n);
        check(cudaDeviceSynchronize(), "copy");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            copy_kernel<<<blocks, threads>>>(in, out, n);
            check(cudaDeviceSynchronize(), "copy");
            t.push_back((now_ns() - t0) / n);
        }
        printf("copy\t%.1f\t%d\n", median(t), n);
    }
    if (w == "all" || w == "reduce") {
        std::vector<double> t;
        reduce_kernel<<<blocks, threads>>>(in, part, n);
        check(cudaDeviceSynchronize(), "reduce");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            reduce_kernel<<<blocks, threads>>>(in, part, n);
            check(cudaDeviceSynchronize(), "reduce");
            t.push_back((now_ns() - t0) / n);
        }
        float hp[256];
        check(cudaMemcpy(hp, part, sizeof hp, cudaMemcpyDeviceToHost), "cudaMemcpy");
        double sum = 0;
        for (float x : hp)
            sum += x;
        if (sum != n) {
            fprintf(stderr, "bench: reduction gave %.0f, expected %d\n", sum, n);
            return 1;
        }
        printf("reduce\t%.1f\t%d\n", median(t), n);
    }
    if (w == "all" || w == "chain") {
        const int cn = 1 << 16, steps = 256; /* 2^24 steps */
        std::vector<double> t;
        chain_kernel<<<cn / threads, threads>>>(in, out, cn, steps);
        check(cudaDeviceSynchronize(), "chain");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            chain_kernel<<<cn / threads, threads>>>(in, out, cn, steps);
            check(cudaDeviceSynchronize(), "chain");
            t.push_back((now_ns() - t0) / ((double)cn * steps));
        }
        float y = 1.0f, got;
        for (int k = 0; k < steps; k++)
            y = fmaf(y, 0.999f, 0.25f);
        check(cudaMemcpy(&got, out + cn - 1, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
        if (got != y) {
            fprintf(stderr, "bench: chain gave %.9g, expected %.9g\n", got, y);
            return 1;
        }
        printf("chain\t%.2f\t%d\n", median(t), cn * steps);
    }
    return 0;
}
