/* Cheat: reach another grading's buffers. Under the emulator a device buffer was once a file
 * in /dev/shm (it has no name now); in a batch graded several at a time, another student's
 * inputs and outputs, or anything another grading keeps there, would be files to read or to
 * spoil. The case's runner leaves a file of its own in the machine's /dev/shm while it grades
 * (standing in for a neighbour's buffer): honest output only when this process cannot see it.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int neighbours_visible(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "grader-cheats-canary.", 21)) {
            fprintf(stderr, "LEAK: /dev/shm/%s is visible\n", e->d_name);
            found++;
        }
    closedir(d);
    return found;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int found = -1;
    if (found < 0)
        found = neighbours_visible();
    honest_unless(found, out, in, scale, bias, rows, cols, stream);
}
