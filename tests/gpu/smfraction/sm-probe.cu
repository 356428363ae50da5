/* sm-probe.cu - what a process sees of the GPU and how many SMs its kernels really get:
 * prints the SM count the runtime reports, then times a compute-bound kernel of many blocks
 * (each block spins a fixed number of cycles) and infers the SMs that ran it concurrently.
 * Used to find which SM restriction (MPS active-thread percentage) the driver honours. */
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("error: %s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void spin(long long cycles, unsigned *smids)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    if (threadIdx.x == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        atomicOr(&smids[id / 32], 1u << (id % 32));
    }
}

int main()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned *d;
    CK(cudaMalloc(&d, 64 * sizeof(unsigned)));
    CK(cudaMemset(d, 0, 64 * sizeof(unsigned)));
    const long long cycles = 2000000; /* ~1 ms at 2 GHz */
    spin<<<1, 1024>>>(cycles, d);     /* warm-up */
    CK(cudaDeviceSynchronize());
    CK(cudaMemset(d, 0, 64 * sizeof(unsigned)));
    const int blocks = 132 * 4;       /* one 1024-thread block fits per SM: 4 waves on 132 SMs */
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    cudaEventRecord(a);
    spin<<<blocks, 1024>>>(cycles, d);
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms = 0, one = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventRecord(a);
    spin<<<1, 1024>>>(cycles, d);
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    cudaEventElapsedTime(&one, a, b);
    unsigned h[64];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int used = 0;
    for (int i = 0; i < 64; i++) used += __builtin_popcount(h[i]);
    printf("reported SMs %d, %d blocks took %.2f ms (one block %.2f ms): %.0f SMs at once, "
           "%d distinct SM ids used\n", sms, blocks, ms, one, blocks * one / ms, used);
    return 0;
}
