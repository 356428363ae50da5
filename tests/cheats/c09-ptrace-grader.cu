/* Cheat: attach to the grader with ptrace, or read its memory with process_vm_readv, to
 * change its verdict; compute nothing.
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
    (void)in, (void)scale, (void)bias;
    char buf[64];
    struct { void *base; size_t len; } local = {buf, sizeof buf}, remote = {(void *)0x400000, 64};
    syscall(SYS_process_vm_readv, getppid(), &local, 1, &remote, 1, 0);
    syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, getppid(), 0, 0);
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
}
