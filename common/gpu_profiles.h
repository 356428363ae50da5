/* gpu_profiles.h - real GPUs as data: what the grader would learn from each with device_query,
 * for a machine that has none of them.
 *
 * Students grade on anything from a T4 to a B200. The unit tests walk this table to check
 * that every lab sizes its problems for each of these GPUs (fits in memory, beats the L2,
 * waves follow the SM count) and `make profiles` prints what grading would take on each. A
 * profile turns into the same device_info the harness fills from the GPU in hand
 * (device_from_profile), so the sizing code under test is the code that runs. */
#ifndef COMMON_GPU_PROFILES_H
#define COMMON_GPU_PROFILES_H

#include "device_info.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_profile {
    const char *key;             /* short name: "t4", "h200" (make profiles, test messages) */
    const char *name;            /* cudaDeviceProp.name as the driver reports it */
    int cc_major, cc_minor;      /* compute capability */
    int sm_count;                /* multiProcessorCount */
    int max_threads_per_sm;      /* maxThreadsPerMultiProcessor */
    int max_blocks_per_sm;       /* maxBlocksPerMultiProcessor */
    int regs_per_sm;             /* regsPerMultiprocessor (65536 on every GPU here) */
    size_t smem_per_sm;          /* sharedMemPerMultiprocessor, bytes */
    size_t smem_per_block_optin; /* sharedMemPerBlockOptin, bytes */
    size_t l2_bytes;             /* l2CacheSize */
    size_t global_mem_bytes;     /* totalGlobalMem: the memory on the board less what the
                                    driver keeps (ECC, firmware) */
    size_t free_mem_bytes;       /* what cudaMemGetInfo leaves a grading process: total less
                                    the CUDA context and, on a GPU that drives a display (a
                                    laptop's) or shares its memory with the OS (a Jetson),
                                    their share; an estimate, see each row */
    size_t host_mem_bytes;       /* the host's RAM in a typical machine with this GPU */
    int sm_clock_khz;            /* cudaDevAttrClockRate: the boost clock */
    int mem_clock_khz;           /* cudaDevAttrMemoryClockRate; with mem_bus_bits it gives the
                                    datasheet bandwidth (device_dram_peak_gbps) */
    int mem_bus_bits;            /* memoryBusWidth */
    int async_engines;           /* asyncEngineCount: copy engines */
    int ecc;                     /* ECCEnabled as shipped */
    double host_link_gbps;       /* pinned host <-> device copy, GB/s each way (lab 05): PCIe
                                    achievable rate, or DRAM to DRAM on a Jetson */
} gpu_profile;

extern const gpu_profile gpu_profiles[];
extern const int n_gpu_profiles;

/* The profile whose key is `key`, or NULL. */
const gpu_profile *gpu_profile_find(const char *key);

/* Fill *d as device_query would on that GPU: ordinal -1, not emulated, CUDA 13.0. */
void device_from_profile(const gpu_profile *p, device_info *d);

#ifdef __cplusplus
}
#endif
#endif
