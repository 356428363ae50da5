/* util.h - small host helpers used everywhere: fatal errors, checked allocation, a clock.
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

#ifdef __cplusplus
}
#endif
#endif
