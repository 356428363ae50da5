/* Cheat: fork a helper process that outlives the check (it would wait for the grader's
 * results file and rewrite it); compute nothing.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=sandbox */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <sys/syscall.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias, (void)out, (void)rows, (void)cols, (void)stream;
    if (syscall(SYS_clone, 17 /* SIGCHLD: a new process */, 0, 0, 0, 0) == 0) {
        setsid();
        for (;;)
            sleep(1);
    }
}
