/* Cheat: write into the grader's memory (its parent process) through /proc/PID/mem, and
 * read its command line and environment for the secret seed; compute nothing.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: seed-hidden */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static void dump(const char *path)
{
    char buf[4096];
    const int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf("cannot read %s\n", path);
        return;
    }
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    buf[n > 0 ? n : 0] = 0;
    printf("%s: %s\n", path, buf);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias;
    char path[64];
    for (pid_t pid = getppid(), k = 0; k < 3 && pid > 1; k++) {
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid), dump(path);
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid), dump(path);
        snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
        const int fd = open(path, O_RDWR);
        printf("%s for writing: %s\n", path, fd >= 0 ? "OPEN" : "refused");
        if (fd >= 0) { /* scribble over its code: a verdict would come out of a broken grader */
            char junk[4096] = {0};
            if (pwrite(fd, junk, sizeof junk, 0x400000) < 0) {
            }
            close(fd);
        }
        pid = pid - 1; /* the driver is usually just before */
    }
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
}
