/* Cheat: kill the grader's processes (its parent, its group, every process of the user) so
 * that no verdict is written; compute nothing.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <signal.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias;
    kill(getppid(), SIGKILL);
    kill(0, SIGKILL);
    kill(-1, SIGKILL);
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
}
