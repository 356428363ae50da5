/* Cheat: escape the sandbox through another process of the same user. A process may write
 * another's memory through /proc/PID/mem when both run as one user and the target is
 * "dumpable" (no ptrace needed): the grader's driver, the shell that runs grade.sh, make, an
 * instructor's batch, or the reference's worker (patched, it would run slower). This file
 * opens every process it can see for writing, and reads their command lines and environment
 * for the secret seed; it writes nothing into them (the attack is proven by the open).
 * Honest output (fast enough to pass) only when every attempt was refused, so "all correct"
 * and a passed speed check mean the door is shut.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: seed-hidden */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* How many other processes' memory this process could open for writing (each one an escape:
 * code injected there runs outside the sandbox). */
static int doors_open(void)
{
    int open_doors = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    const int me = (int)getpid();
    struct dirent *e;
    while ((e = readdir(d))) {
        const int pid = atoi(e->d_name);
        if (pid <= 0 || pid == me)
            continue;
        char path[64], cmd[256] = "";
        snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
        const int c = open(path, O_RDONLY);
        if (c >= 0) {
            const ssize_t n = read(c, cmd, sizeof cmd - 1);
            for (ssize_t i = 0; i < n; i++)
                if (!cmd[i])
                    cmd[i] = ' ';
            cmd[n > 0 ? n : 0] = 0;
            close(c);
        }
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        const int env = open(path, O_RDONLY);
        if (env >= 0) {
            char buf[8192];
            const ssize_t n = read(env, buf, sizeof buf);
            if (n > 0)
                fprintf(stderr, "read the environment of %d (%s)\n", pid, cmd);
            close(env);
        }
        snprintf(path, sizeof path, "/proc/%d/mem", pid);
        const int fd = open(path, O_RDWR);
        if (fd >= 0) {
            fprintf(stderr, "ESCAPE: %s is open for writing (%s)\n", path, cmd);
            open_doors++;
            close(fd);
        }
    }
    closedir(d);
    return open_doors;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_unless_at_each_size(doors_open, out, in, scale, bias, rows, cols, stream);
}
