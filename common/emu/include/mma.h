/* mma.h -- a header of NVIDIA's that the CPU emulator does not emulate: including it is the
 * emulator's refusal of a valid CUDA feature ("cannot be checked on the CPU emulator"), placed
 * by emu-nvcc at the line that includes it; a GPU grades the file (README.md, Refusals). The
 * missing file below stops the compile here: what follows uses names no header declares. */
#pragma GCC error "cuda-emu: cannot be checked on the CPU emulator: warp matrix functions (<mma.h>: wmma, tensor cores)"
#include "cuda-emu stops here: the header above is not emulated"
