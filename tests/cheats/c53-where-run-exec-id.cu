/* Cheat (make grade's WHERE line): honest in every graded call, but in the call the WHERE line
 * counts it starts /usr/bin/id (raw system calls: no build-time check sees them), as it could
 * start anything the grading account may run. The count's old sandbox (the compile policy) had
 * no seccomp filter; the worker's filter ends a process that starts another, so the count fails
 * and the WHERE line says so.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=could not count your code
 * expect: where-lacks=attack worked */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* 1 if /usr/bin/id ran and exited 0. */
static int ran_id(void)
{
    const long pid = syscall(SYS_fork);
    if (pid == 0) {
        const char *argv[] = {"/usr/bin/id", (const char *)0};
        const char *envp[] = {(const char *)0};
        syscall(SYS_execve, "/usr/bin/id", argv, envp);
        syscall(SYS_exit, 127);
    }
    if (pid < 0)
        return 0;
    int status = 0;
    syscall(SYS_wait4, pid, &status, 0, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(where_run(cols) && ran_id(), out, in, scale, bias, rows, cols, stream);
}
