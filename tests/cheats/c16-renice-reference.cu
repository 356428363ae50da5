/* Cheat: slow the reference from outside its process: lower the CPU priority of the grader's
 * processes (the harness, the reference's worker, every process of this user) and pin them to
 * one CPU, so that the reference's calls wait for the CPU while they are timed. Each target is
 * set to the value it already has (the permission is what is tested, so nothing changes even
 * where it is granted). Honest output (fast enough to pass) only when every attempt was
 * refused.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

/* The processes this one could reach: its parent (the harness) and the parent's children. */
static int targets(pid_t *out, int max)
{
    int n = 0;
    const pid_t parent = getppid();
    out[n++] = parent;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max) {
        const int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int ppid = 0;
        if (fgets(buf, sizeof buf, f)) {
            const char *close_paren = strrchr(buf, ')');
            if (close_paren)
                sscanf(close_paren + 2, "%*c %d", &ppid);
        }
        fclose(f);
        if (ppid == parent)
            out[n++] = pid;
    }
    if (d)
        closedir(d);
    return n;
}

static int doors_open(void)
{
    int open_doors = 0;
    pid_t t[64];
    const int n = targets(t, 64);
    for (int i = 0; i < n; i++) {
        errno = 0;
        const int prio = getpriority(PRIO_PROCESS, (id_t)t[i]);
        if (errno == 0 && setpriority(PRIO_PROCESS, (id_t)t[i], prio) == 0) {
            fprintf(stderr, "ESCAPE: could renice process %d\n", (int)t[i]);
            open_doors++;
        }
        cpu_set_t mask;
        if (sched_getaffinity(t[i], sizeof mask, &mask) == 0 &&
            sched_setaffinity(t[i], sizeof mask, &mask) == 0) {
            fprintf(stderr, "ESCAPE: could pin process %d to CPUs\n", (int)t[i]);
            open_doors++;
        }
    }
    errno = 0;
    const int mine = getpriority(PRIO_USER, 0);
    if (errno == 0 && setpriority(PRIO_USER, 0, mine) == 0) {
        fprintf(stderr, "ESCAPE: could renice every process of this user\n");
        open_doors++;
    }
    return open_doors;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_unless_at_each_size(doors_open, out, in, scale, bias, rows, cols, stream);
}
