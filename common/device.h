/* device.h - what the grader needs to know about the GPU in hand.
 *
 * Everything that sizes a problem or names a ceiling comes from here (SM count, L2 size,
 * memory, clocks), never from constants: the same lab runs on a T4 and on an H200. */
#ifndef COMMON_DEVICE_H
#define COMMON_DEVICE_H

#include <stddef.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct device_info {
    int ordinal;                 /* CUDA device number */
    char name[256];              /* "NVIDIA H200" */
    int cc_major, cc_minor;      /* compute capability, 9.0 for Hopper */
    int sm_count;                /* streaming multiprocessors */
    int max_threads_per_sm;      /* resident threads per SM (2048 on sm_80/sm_90) */
    int max_threads_per_block;   /* 1024 */
    int max_blocks_per_sm;       /* resident blocks per SM */
    int regs_per_sm;             /* 32-bit registers per SM */
    size_t smem_per_sm;          /* shared memory per SM, bytes */
    size_t smem_per_block_optin; /* largest shared memory a block may opt into, bytes */
    size_t l2_bytes;             /* L2 cache size */
    size_t global_mem_bytes;     /* total device memory */
    size_t free_mem_bytes;       /* free device memory when queried */
    int sm_clock_khz;            /* peak SM clock the driver reports */
    int mem_clock_khz;           /* peak memory clock the driver reports */
    int mem_bus_bits;            /* memory bus width */
    int async_engines;           /* copy engines usable concurrently with kernels */
    int ecc;                     /* 1 when ECC is on */
    int driver_version;          /* e.g. 13000 */
    int runtime_version;         /* e.g. 13000 */
    int emulated;                /* 1 when running under the CPU emulator (no timing) */
} device_info;

/* Fill *d for device `ordinal` (and make it current). Exits through CUDA_CHECK on failure. */
void device_query(int ordinal, device_info *d);

/* FP32 FMA lanes per SM for this compute capability (64 or 128). */
int device_fp32_lanes_per_sm(const device_info *d);

/* SM clock under a full-device FMA load, MHz: clock64() cycles over %globaltimer
 * nanoseconds, read side by side in one block of a wave of busy blocks. The clock a
 * compute-bound kernel really runs at. */
double device_measure_sm_clock_mhz(const device_info *d, cudaStream_t s);

/* FP32 FMA peak in GFLOP/s (2 flops per FMA) at clock `mhz`. */
double device_fma_peak_gflops(const device_info *d, double mhz);

#ifdef __cplusplus
}
#endif
#endif
