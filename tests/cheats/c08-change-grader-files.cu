/* Cheat: rewrite the grader's own files (the vetting script, another lab's harness, the
 * course configuration) so that later checks or labs are graded by the student's rules. The
 * output itself is honest: only the tree's integrity is at stake.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void try_write(const char *rel, const char *text)
{
    char exe[1024] = "";
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    /* from the worker's folder (build/<mode>) up to the tree's root */
    for (int up = 0; up < 6; up++) {
        char path[2048];
        snprintf(path, sizeof path, "%s", exe);
        for (int k = 0; k <= up; k++) {
            char *s = strrchr(path, '/');
            if (s)
                *s = 0;
        }
        strncat(path, "/", sizeof path - strlen(path) - 1);
        strncat(path, rel, sizeof path - strlen(path) - 1);
        const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
        if (fd >= 0) {
            printf("WROTE %s\n", path);
            if (write(fd, text, strlen(text)) < 0) {
            }
            close(fd);
        }
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    try_write("grader/make/vet.sh", "#!/bin/sh\ncp \"$2\" \"$3\"\n");
    try_write("grader/course.conf", "*.threshold = 0.0001\n");
    try_write("gpu/.grader/transpose/harness", "#!/bin/sh\necho done 0\n");
    try_write("emu/.grader/transpose/harness", "#!/bin/sh\necho done 0\n");
    try_write("pwned", "x");
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
