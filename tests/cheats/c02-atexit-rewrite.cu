/* Cheat: a destructor and an atexit handler that rewrite results after the grader finished,
 * with a wrong kernel in between.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void rewrite(void)
{
    const char text[] = "{\"score\": 146, \"max\": 146, \"exit_status\": 0}\n";
    const char *paths[] = {"build/grade/results.json", "../build/grade/results.json",
                           "../../build/grade/results.json", "../../../build/grade/results.json"};
    for (int i = 0; i < 4; i++) {
        const int fd = open(paths[i], O_WRONLY | O_TRUNC);
        if (fd >= 0) {
            if (write(fd, text, sizeof text - 1) < 0) {
            }
            close(fd);
        }
    }
}

__attribute__((destructor)) static void on_unload(void) { rewrite(); }
__attribute__((constructor)) static void on_load(void) { atexit(rewrite); }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias;
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
}
