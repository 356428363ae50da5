/* Cheat: start a shell (a raw execve system call, which no build-time check can see) that
 * would rewrite the grader's files; compute nothing.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=sandbox
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <sys/syscall.h>
#include <unistd.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)in, (void)scale, (void)bias, (void)out, (void)rows, (void)cols, (void)stream;
    const char *argv[] = {"/bin/sh", "-c", "echo pwned >> grader/make/vet.sh", (const char *)0};
    const char *envp[] = {(const char *)0};
    syscall(SYS_execve, "/bin/sh", argv, envp);
}
