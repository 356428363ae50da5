/* Cheat: a slow kernel, plus thousands of fast "timing samples" written to every descriptor
 * the process has (the records file, in a grader that let the student's process hold it).
 * Writing into the command socket breaks the worker's channel: that check fails.
 * lab: coalescing
 * where: gpu
 * expect: correct=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <stdio.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    char line[128];
    const int len = snprintf(line, sizeof line, "sample stu_ms=0.001 ref_ms=1 null_ms=0\n");
    for (int fd = 3; fd < 64; fd++)
        for (int i = 0; i < 100; i++)
            if (write(fd, line, (size_t)len) < 0)
                break;
    slow_coalescing(out, in, scale, bias, rows, cols, stream);
}
