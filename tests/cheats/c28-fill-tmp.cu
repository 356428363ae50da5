/* Cheat: fill the worker's /tmp without bound (the disk of the machine that grades). The
 * worker's /tmp is private and holds 64 MB; a file is limited too. Honest output only when
 * the writing was stopped.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int doors(void)
{
    static int counted = -1;
    if (counted >= 0)
        return counted;
    int open_doors = 0;
    /* /tmp without bound */
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4200];
    snprintf(path, sizeof path, "%s/fill", tmp);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char block[1 << 20];
    long long written = 0;
    signal(SIGXFSZ, SIG_IGN);
    while (fd >= 0 && written < (512LL << 20) && write(fd, block, sizeof block) == (ssize_t)sizeof block)
        written += sizeof block;
    if (fd >= 0)
        close(fd), unlink(path);
    if (written >= (512LL << 20))
        open_doors++, fprintf(stderr, "door: 512 MiB written to %s\n", tmp);
    return counted = open_doors;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_unless(doors(), out, in, scale, bias, rows, cols, stream);
}
