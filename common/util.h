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

/* Puts this process in a mount namespace of its own, every mount private to it (for an
 * ordinary user, inside a user namespace that maps its uid and gid to themselves, which
 * creating one needs). The grader's sandboxes start here. 0, or -1 with errno. */
int enter_own_mount_namespace(void);

/* Just after unshare(CLONE_NEWUSER): map this process's uid and gid to themselves inside the
 * new user namespace (and deny setgroups, which an unprivileged map needs). 0, or -1. */
int map_own_ids(void);

#ifdef __cplusplus
}
#endif
#endif
