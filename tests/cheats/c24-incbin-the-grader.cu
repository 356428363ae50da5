/* Cheat: .incbin another file into the object (the grader's source, the reference, a batch's
 * reports), to print it from the worker later. The assembler runs in the compile's sandbox:
 * none of these files is there, so the build fails (had one been found, it would succeed).
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=incbin|file not found|No such file
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
__asm__(".section .rodata.loot\n"
        ".incbin \"../../../../../solutions/01-coalescing/coalescing.cu\"\n"
        ".text\n");
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
