/* device_info.h - the facts about a GPU that size problems and name ceilings, as plain data.
 *
 * Host-only C (no CUDA headers): the grader's runners fill a device_info from the GPU in hand
 * (device_query in device.h); the unit tests and `make profiles` fill one from a real GPU's
 * published figures (common/gpu_profiles.h). Whatever sizes a lab's problem reads only this
 * struct, so the tests run the same sizing code on a T4 and on a B200 without either. */
#ifndef COMMON_DEVICE_INFO_H
#define COMMON_DEVICE_INFO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct device_info {
    int ordinal;                 /* CUDA device number (-1: a profile, no device) */
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
    size_t host_mem_bytes;       /* physical memory of the host (lab 05's pinned arrays live
                                    there; on a Jetson the same memory as the GPU's) */
    int sm_clock_khz;            /* peak SM clock the driver reports */
    int mem_clock_khz;           /* peak memory clock the driver reports */
    int mem_bus_bits;            /* memory bus width */
    int async_engines;           /* copy engines usable concurrently with kernels */
    int ecc;                     /* 1 when ECC is on */
    int driver_version;          /* e.g. 13000 */
    int runtime_version;         /* e.g. 13000 */
    int emulated;                /* 1 when running under the CPU emulator (no timing) */
} device_info;

/* FP32 FMA lanes per SM for this compute capability (64 or 128). */
int device_fp32_lanes_per_sm(const device_info *d);

/* FP32 FMA peak in GFLOP/s (2 flops per FMA) at clock `mhz`. */
double device_fma_peak_gflops(const device_info *d, double mhz);

/* Peak DRAM bandwidth in GB/s from the memory clock and bus width (two transfers a clock, as
 * cudaDeviceProp reports the clock of every DRAM kind). */
double device_dram_peak_gbps(const device_info *d);

/* Resident blocks per SM of a kernel with blocks of `threads` threads, `regs` registers a
 * thread and `smem` bytes of shared memory a block: the least of the limits by threads, by
 * blocks, by registers (allocated per warp in units of 256, warps in groups of 4 across the
 * SM's four schedulers) and by shared memory (1 KiB a block reserved by the system from
 * sm_80 on). The arithmetic of cudaOccupancyMaxActiveBlocksPerMultiprocessor, for a device
 * that may not be here. 0 when a block cannot fit at all. */
int device_blocks_per_sm(const device_info *d, int threads, int regs, size_t smem);

#ifdef __cplusplus
}
#endif
#endif
