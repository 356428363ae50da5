/* Attack on the run's labels by rewriting the grader's own code, where student code shares
 * the harness's process (GRADER_ISOLATION=off): at its first call, take the harness's
 * `workers_isolated` (the function whose answer said whether student code runs isolated) and
 * overwrite its first bytes with `return 1`, so that everything the harness says about
 * isolation from then on says tamper-proof. The kernel is honest. The harness said whether
 * student code is isolated once, before any was in its process, and the driver labels the
 * run from that and from what it asked for: the terminal and results.json say not
 * tamper-proof, and name no sandbox. (x86-64: elsewhere the file is an honest one.)
 * lab: coalescing
 * where: emu gpu
 * isolation: off
 * expect: all-correct=OK
 * expect: not-tamper-proof
 * expect: report-lacks="sandbox": "(namespaces|landlock)" */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The harness's own function, bound when this object is loaded into a process that exports
 * it (the harness, under the fallback); NULL in a worker of its own. */
extern "C" int workers_isolated(void) __attribute__((weak));

static void make_isolated_say_yes(void)
{
#if defined(__x86_64__)
    void *f = (void *)&workers_isolated;
    if (!f)
        return;
    static const unsigned char return_1[] = {0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3}; /* mov eax,1; ret */
    const long page = sysconf(_SC_PAGESIZE);
    void *start = (void *)((uintptr_t)f & ~(uintptr_t)(page - 1));
    if (mprotect(start, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) == 0) {
        memcpy(f, return_1, sizeof return_1);
        mprotect(start, 2 * page, PROT_READ | PROT_EXEC);
        fprintf(stderr, "c57: workers_isolated now says %d\n", workers_isolated());
    }
#endif
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int patched;
    if (!patched++)
        make_isolated_say_yes();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
