/* Cheat: an object of gigabytes. The assembler is asked to fill 3 GiB: without limits it fills
 * the disk or the memory of the machine that grades. The compile's file-size and memory limits
 * stop it, and the build says which.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=larger than|ran out of|memory
 * expect: tree-unchanged */
#include "coalescing.h"
__asm__(".section .data.big\n.fill 0xC0000000, 1, 0x41\n.text\n");
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
}
