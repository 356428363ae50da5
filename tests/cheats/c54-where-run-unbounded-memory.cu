/* Cheat (make grade's WHERE line): honest in every graded call, but in the call the WHERE line
 * counts it takes host memory without end, 256 MiB at a time, every page touched, until it
 * holds 16 GiB or cannot get more. The count's old sandbox gave it no memory limit (and it ran
 * in the harness's process). Now it runs in its own worker, first in line for the kernel's
 * out-of-memory killer as in grading, and under the emulator's memory limit for a count (4 GiB
 * resident): the worker is ended there, and the WHERE line says the count failed.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=could not count your code
 * expect: where-lacks=attack worked */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)256 << 20)

/* 1 if it came to hold 16 GiB (never freed). */
static int held_everything(void)
{
    for (int i = 0; i < 64; i++) {
        char *p = (char *)malloc(CHUNK);
        if (!p)
            return 0;
        memset(p, 1, CHUNK);
    }
    return 1;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(where_run(cols) && held_everything(), out, in, scale, bias, rows, cols, stream);
}
