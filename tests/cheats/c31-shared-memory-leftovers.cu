/* Cheat: leave things in shared memory for the next worker, and fill shared memory to starve
 * the grader. Under the emulator a device buffer could be a file in /dev/shm that outlives a
 * process killed mid-call; a worker could also leave files and POSIX shared memory objects
 * there (or in /tmp), or write until the file system the harness keeps its buffers in is full.
 *
 * Every worker, at its first call: looks for what an earlier worker of this run left (a marker
 * file or object of another process, an emulated allocation of a process that is gone); then
 * leaves its own (marker files, a POSIX shared memory object, a device allocation it never
 * frees) and writes into /dev/shm until it is refused. The first worker then ends itself in
 * the middle of the "33 x 33" check, without exiting cleanly, so that a new worker grades the
 * rest. Honest output only when nothing was found and /dev/shm was bounded: that check fails
 * (the worker's fault), every other passes, and none is blamed on the grader.
 * lab: coalescing
 * where: emu
 * expect: fails-only=^33 x 33$
 * expect: message=exited with status 3 */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MARK "c19-leftover."
#define FILL_CAP ((size_t)512 << 20) /* a /dev/shm that takes this much is not bounded */

/* What an earlier process left in DIR: markers not of this process, and emulated device memory
 * (cuda-emu.PID.N) of a process that no longer runs. */
static int leftovers_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char mine[64];
    snprintf(mine, sizeof mine, "%d", (int)getpid());
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        int left = 0;
        if (!strncmp(n, MARK, strlen(MARK)) && !strstr(n, mine))
            left = 1;
        if (!strncmp(n, "cuda-emu.", 9)) {
            char proc[64]; /* not kill(pid, 0): the sandbox refuses signals to others */
            snprintf(proc, sizeof proc, "/proc/%ld", strtol(n + 9, NULL, 10));
            left = access(proc, F_OK) != 0;
        }
        if (left) {
            fprintf(stderr, "LEAK: %s/%s, left by an earlier process, is visible\n", dir, n);
            found++;
        }
    }
    closedir(d);
    return found;
}

/* Leaves a marker file in DIR. */
static void leave_markers(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/" MARK "file.%d", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("left by an earlier worker\n", f);
        fclose(f);
    }
}

/* Writes files into /dev/shm until refused (or FILL_CAP); returns the bytes written. */
static size_t fill_dev_shm(void)
{
    static char chunk[1 << 20];
    memset(chunk, 0x5a, sizeof chunk);
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit then fails the write instead */
    size_t total = 0;
    for (int k = 0; total < FILL_CAP; k++) {
        char path[256];
        snprintf(path, sizeof path, "/dev/shm/" MARK "fill.%d.%d", (int)getpid(), k);
        const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            break;
        size_t in_file = 0;
        while (in_file < ((size_t)16 << 20) && write(fd, chunk, sizeof chunk) == (ssize_t)sizeof chunk)
            in_file += sizeof chunk;
        close(fd);
        total += in_file;
        if (in_file < ((size_t)16 << 20))
            break; /* refused: full */
    }
    return total;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int doors = -1;
    static int first_worker;
    if (doors < 0) {
        doors = leftovers_in("/dev/shm") + leftovers_in("/tmp");
        first_worker = rows == 1 && cols == 1; /* the run's first check */
        leave_markers("/dev/shm");
        leave_markers("/tmp");
        char name[64];
        snprintf(name, sizeof name, "/" MARK "object.%d", (int)getpid());
        const int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
        if (fd >= 0 && ftruncate(fd, 1 << 20) != 0)
            fprintf(stderr, "c19: a POSIX shared memory object could not grow\n");
        float *never_freed = NULL;
        if (cudaMalloc(&never_freed, 1 << 20) == cudaSuccess)
            cudaMemset(never_freed, 0, 1 << 20);
        const size_t filled = fill_dev_shm();
        fprintf(stderr, "c19: /dev/shm took %zu MiB before refusing\n", filled >> 20);
        if (filled >= FILL_CAP) {
            fprintf(stderr, "LEAK: /dev/shm took %zu MiB and was still not full\n", filled >> 20);
            doors++;
        }
    }
    if (first_worker && rows == 33 && cols == 33)
        _exit(3); /* killed mid-call, as a crash would: no clean-up runs */
    honest_unless(doors, out, in, scale, bias, rows, cols, stream);
}
