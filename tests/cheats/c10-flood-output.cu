/* Attack on the grading machine: 64 MB of output on every call (a class of 100 would fill
 * a disk). The output is honest; the grader keeps at most 1 MB of it per check.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: log-under=1100000 */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <string.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static char line[1 << 16];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 1024; i++)
        if (write(1, line, sizeof line) < 0)
            break;
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
