/* util.h - small host helpers used everywhere: fatal errors, checked allocation, a clock, host
 * memory asked for on a NUMA node.
 *
 * Plain C, no CUDA: the grader's driver and the unit tests link it without nvcc. */
#ifndef COMMON_UTIL_H
#define COMMON_UTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Print "error: <message>" to stderr and exit with status 2 (a check could not run). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* malloc/calloc that never return NULL: out of memory is fatal with the size asked for. */
void *xmalloc(size_t bytes);
void *xcalloc(size_t count, size_t size);

/* Seconds on a monotonic clock; only differences mean anything. */
double wall_seconds(void);

/* Ask that the pages of the fresh mapping [p, p + bytes) be made on NUMA node `node` when they
 * are first touched (a preference: another node where that one is full). Pinned host memory
 * the GPU copies to and from belongs where the GPU reaches it without crossing to another
 * socket (device_host_numa_node, device.h): placed by whichever CPU first touches each page,
 * lab 05's arrays on a host of several nodes would be part near and part far, the student's
 * and the reference's each its own mix. 0, or an errno (the pages then go where they would
 * have); nothing done where node < 0. */
int host_memory_prefer_node(void *p, size_t bytes, int node);

#ifdef __cplusplus
}
#endif
#endif
