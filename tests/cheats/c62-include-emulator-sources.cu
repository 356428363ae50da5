/* Cheat: read the CPU emulator's own sources at compile time, through the folder of its
 * public headers that emu-nvcc puts on the include path: <../src/emu_internal.h> (then its
 * race checks' switches, its memory layout). The compile is shown the public headers, emu-nvcc
 * and the rewriter only: src/ is not in its view, and the build fails saying the file is not
 * there (or may not be read).
 * lab: coalescing
 * where: emu
 * expect: build=FAIL
 * expect: build-message=emu_internal.h.*(No such file|Permission denied)
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <../src/emu_internal.h>
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
