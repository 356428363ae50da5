/* util.c - fatal errors, checked allocation, a monotonic clock. See util.h. */
#include "util.h"

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
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

/* Writes TEXT to the file at PATH (a /proc setting): 0, or -1. */
static int write_setting(const char *path, const char *text)
{
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

int map_own_ids(void)
{
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    char map[64];
    write_setting("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%d %d 1", (int)uid, (int)uid);
    if (write_setting("/proc/self/uid_map", map) != 0)
        return -1;
    snprintf(map, sizeof map, "%d %d 1", (int)gid, (int)gid);
    return write_setting("/proc/self/gid_map", map);
}

int enter_own_mount_namespace(void)
{
    if (getuid() == 0) {
        if (unshare(CLONE_NEWNS) != 0)
            return -1;
    } else if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || map_own_ids() != 0) {
        return -1;
    }
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}
