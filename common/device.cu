/* device.cu - device properties and the measured SM clock. See device.h. */
#include "device.h"
#include "check.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int attribute(cudaDeviceAttr attr, int dev)
{
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, dev));
    return v;
}

void device_query(int ordinal, device_info *d)
{
    cudaDeviceProp p;
    memset(d, 0, sizeof *d);
    CUDA_CHECK(cudaSetDevice(ordinal));
    CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
    d->ordinal = ordinal;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->global_mem_bytes = p.totalGlobalMem;
    d->mem_bus_bits = p.memoryBusWidth;
    d->async_engines = p.asyncEngineCount;
    d->ecc = p.ECCEnabled;
    /* CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain. */
    d->sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
    d->mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    d->free_mem_bytes = free_b;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    d->host_mem_bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
    CUDA_CHECK(cudaDriverGetVersion(&d->driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&d->runtime_version));
#ifdef CUDA_EMU
    d->emulated = 1;
#endif
}

int device_host_numa_node(int ordinal)
{
#if defined(CUDA_EMU)
    (void)ordinal;
    return -1;
#else
    char bus[32], path[96];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    for (char *c = bus; *c; c++) /* "0000:3B:00.0": sysfs spells it in lower case */
        *c = (char)tolower((unsigned char)*c);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", bus);
    FILE *f = fopen(path, "r");
    int node = -1;
    if (f) {
        if (fscanf(f, "%d", &node) != 1)
            node = -1;
        fclose(f);
    }
    /* One node (or none known): nothing to prefer. The host's nodes are sysfs's node1, ... */
    if (node >= 0 && access("/sys/devices/system/node/node1", F_OK) != 0)
        node = -1;
    return node;
#endif
}

/* The cycle counter and the global nanosecond timer, read with "memory" clobbers so the
 * compiler keeps them where they are written relative to the loads and stores around them. */
__device__ __forceinline__ long long read_clock64(void)
{
#if defined(CUDA_EMU)
    return clock64();
#else
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
#endif
}

__device__ __forceinline__ unsigned long long read_globaltimer_ns(void)
{
#if defined(CUDA_EMU)
    return 0;
#else
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
#endif
}

/* Eight independent FMA chains per thread keep every FP32 lane busy, so the SM runs at the
 * clock a compute-bound kernel gets (boost may drop under load). Block 0's thread 0 reads
 * the cycle counter and the nanosecond timer side by side before and after the work:
 * cycles / nanoseconds is the clock, whatever else the block's timing includes. The chains
 * start from the first clock reading and end in a shared-memory store before the second, so
 * the work cannot be moved outside the measured interval. */
__global__ void clock_probe_kernel(float *sink, long long *cycles, unsigned long long *ns,
                                   int iters)
{
    __shared__ volatile float result[1024];
    const unsigned long long t0 = read_globaltimer_ns();
    const long long c0 = read_clock64();
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; k++)
        a[k] = threadIdx.x * 1e-3f + k + (float)(c0 & 1);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 8; k++)
            a[k] = fmaf(a[k], 0.999f, 0.001f);
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; k++)
        s += a[k];
    result[threadIdx.x] = s;
    __syncthreads();
    const long long c1 = read_clock64();
    const unsigned long long t1 = read_globaltimer_ns();
    if (result[threadIdx.x] == 12345.678f) /* never true; keeps the chains alive */
        sink[threadIdx.x] = s;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *cycles = c1 - c0;
        *ns = t1 - t0;
    }
}

double device_measure_sm_clock_mhz(const device_info *d, cudaStream_t s)
{
    float *sink;
    long long *cycles, host_cycles = 0;
    unsigned long long *ns, host_ns = 0;
    CUDA_CHECK(cudaMalloc(&sink, 1024 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&cycles, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&ns, sizeof(unsigned long long)));
    const int threads = 512;
    const int blocks = d->sm_count * (d->max_threads_per_sm / threads); /* one full wave */
    const int iters = d->emulated ? 10 : 100000;                        /* ~10 ms on an H200 */
    clock_probe_kernel<<<blocks, threads, 0, s>>>(sink, cycles, ns, iters / 10); /* warm-up */
    CUDA_CHECK_LAUNCH();
    clock_probe_kernel<<<blocks, threads, 0, s>>>(sink, cycles, ns, iters);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(&host_cycles, cycles, sizeof host_cycles, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&host_ns, ns, sizeof host_ns, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(sink));
    CUDA_CHECK(cudaFree(cycles));
    CUDA_CHECK(cudaFree(ns));
    if (host_ns < 1000000) /* under 1 ms (or an emulator): too short to trust */
        return d->sm_clock_khz / 1e3;
    return (double)host_cycles * 1e3 / (double)host_ns;
}
