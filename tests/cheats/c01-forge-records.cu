/* Cheat: compute nothing, then write "all correct" records into every file the process can
 * open for writing (the records files of this and later checks, results.json), and exit.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char forged[] =
    "begin lab=coalescing check=0\ncorrect impl=student n=1 bad=0 detail=ok guard_ok=1 "
    "input_ok=1 problem=\nend\n";

static void forge_everywhere(void)
{
    /* descriptors it inherited, then paths it can guess */
    for (int fd = 3; fd < 1024; fd++)
        if (write(fd, forged, sizeof forged - 1) < 0) {
        }
    const char *paths[] = {"build/grade/results.json", "build/grade/coalescing.0.records",
                           "build/grade/coalescing.1.records", "grader/make/vet.sh", "README.md"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        for (int up = 0; up < 6; up++) {
            char p[512] = "";
            for (int k = 0; k < up; k++)
                strcat(p, "../");
            strcat(p, paths[i]);
            const int fd = open(p, O_WRONLY | O_TRUNC | O_CREAT, 0644);
            if (fd >= 0) {
                if (write(fd, forged, sizeof forged - 1) < 0) {
                }
                close(fd);
            }
        }
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias;
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
    cudaDeviceSynchronize();
    forge_everywhere();
    _exit(0);
}
