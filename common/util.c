/* util.c - fatal errors, checked allocation, a monotonic clock, host memory on a NUMA node.
 * See util.h. */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void fatal(const char *fmt, ...)
{
    va_list ap;
    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        fatal("out of host memory allocating %zu bytes", bytes);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        fatal("out of host memory allocating %zu x %zu bytes", count, size);
    return p;
}

double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int host_memory_prefer_node(void *p, size_t bytes, int node)
{
#if defined(SYS_mbind)
    enum { MPOL_PREFERRED_ = 1, NODE_BITS = 1024 };
    if (node < 0)
        return 0;
    if (node >= NODE_BITS)
        return EINVAL;
    unsigned long mask[NODE_BITS / (8 * sizeof(unsigned long))] = {0};
    mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
    /* maxnode counts one past the mask's last bit (the kernel drops one) */
    if (syscall(SYS_mbind, p, bytes, MPOL_PREFERRED_, mask, (unsigned long)NODE_BITS + 1, 0ul) != 0)
        return errno;
    return 0;
#else
    (void)p, (void)bytes, (void)node;
    return 0;
#endif
}
