/* Cheat (or carelessness) under the CPU emulator: allocate all the device memory the emulator
 * gives a process (cudaMemGetInfo reports 2 GiB) and keep it, then answer honestly. The
 * emulator counts each process's device memory apart, so the grader's own allocations still
 * succeed: every check passes and none is an error. (On a GPU the same code is
 * g10-hold-all-gpu-memory, which fails naming GPU memory.)
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <stdio.h>

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int said;
    const size_t held = hold_all_device_memory();
    if (!said++)
        printf("holding %zu MiB of device memory\n", held >> 20), fflush(stdout);
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
