/* device.h - what the grader needs to know about the GPU in hand.
 *
 * Everything that sizes a problem or names a ceiling comes from here (SM count, L2 size,
 * memory, clocks), never from constants: the same lab runs on a T4 and on an H200. The struct
 * itself is plain data (device_info.h), so that a real GPU's profile can stand in for it. */
#ifndef COMMON_DEVICE_H
#define COMMON_DEVICE_H

#include <stddef.h>
#include <cuda_runtime.h>

#include "device_info.h" /* the struct, and arithmetic on it that needs no GPU */

#ifdef __cplusplus
extern "C" {
#endif

/* Fill *d for device `ordinal` (and make it current). Exits through CUDA_CHECK on failure. */
void device_query(int ordinal, device_info *d);

/* SM clock under a full-device FMA load, MHz: clock64() cycles over %globaltimer
 * nanoseconds, read side by side in one block of a wave of busy blocks. The clock a
 * compute-bound kernel really runs at. */
double device_measure_sm_clock_mhz(const device_info *d, cudaStream_t s);

/* The host's NUMA node nearest device `ordinal` (Linux: the node sysfs gives its PCI address),
 * or -1 where the host has one node or it cannot be told (WSL2, the CPU emulator). Shared
 * host memory is asked for there (host_memory_prefer_node, util.h). */
int device_host_numa_node(int ordinal);

#ifdef __cplusplus
}
#endif
#endif
