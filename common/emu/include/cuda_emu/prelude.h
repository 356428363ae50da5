/*
 * cuda_emu/prelude.h -- what emu-rewrite puts at the top of every rewritten
 * .cu file: the macros nvcc predefines for a CUDA source, and the runtime
 * header nvcc includes implicitly. The file is compiled once, for host and
 * device at the same time, so __CUDA_ARCH__ is defined throughout, as the
 * emulated device's compute capability (9.0): code guarded by it runs, as it
 * does on such a GPU. Host-only .cpp and .c files do not see it.
 */
#ifndef CUDA_EMU_PRELUDE_H
#define CUDA_EMU_PRELUDE_H

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 900
#endif
#define __CUDA_ARCH_LIST__ 900
#define __NVCC__ 1

/* emu-rewrite puts this where the .cu file has asm (inline PTX) outside the subset it
 * translates (README.md, Inline PTX). The words "cuda-emu: cannot be checked on the CPU
 * emulator:" mark a refusal of valid CUDA, which emu-nvcc reports as such (and the grader
 * as "could not run", never as the student's fault). */
#define CUDA_EMU_INLINE_ASM \
    _Pragma("GCC error \"cuda-emu: cannot be checked on the CPU emulator: inline PTX (asm) outside the emulator's subset\"") __asm__

/* ... and this where device code launches a kernel (dynamic parallelism). That is valid CUDA
 * only in separate compilation (nvcc -rdc=true or -dc), where it is a refusal; in a whole-program
 * compile (nvcc's default) nvcc stops at it, and so does this, in nvcc's words: a file that
 * would not build for a GPU is never told "a GPU grades it". For a separate compilation
 * emu-nvcc defines CUDA_EMU_LAUNCH_MODE as rdc in the rewritten file, after this header's
 * #include; the mode is read where a launch is written (a token pasted then), so the
 * precompiled prelude serves both. */
#define CUDA_EMU_DEVICE_LAUNCH CUDA_EMU_DEVICE_LAUNCH_IN_(CUDA_EMU_LAUNCH_MODE)
#define CUDA_EMU_DEVICE_LAUNCH_IN_(mode) CUDA_EMU_DEVICE_LAUNCH_IN__(mode)
#define CUDA_EMU_DEVICE_LAUNCH_IN__(mode) CUDA_EMU_DEVICE_LAUNCH_##mode
#define CUDA_EMU_DEVICE_LAUNCH_rdc \
    _Pragma("GCC error \"cuda-emu: cannot be checked on the CPU emulator: a kernel launch inside device code (dynamic parallelism)\"") (void)0
#define CUDA_EMU_DEVICE_LAUNCH_CUDA_EMU_LAUNCH_MODE \
    _Pragma("GCC error \"kernel launch from __device__ or __global__ functions requires separate compilation mode (nvcc -rdc=true), which this compile is not: nvcc stops here too\"") (void)0

#include <cuda_runtime.h>

/* A function marked no_sanitize("thread") would be compiled without the calls
 * through which the emulator sees its loads and stores (src/track.cpp): no
 * bounds, race or uninitialized-read check at all. nvcc ignores the attribute
 * in device code; here it is refused wherever the file writes it, also when a
 * macro pastes the name together ("attempt to use poisoned"). */
#pragma GCC poison no_sanitize no_sanitize_thread __no_sanitize__ __no_sanitize_thread__

/* A kernel's printf is the host's, through cuda_emu_printf (src/exec.cpp), which counts the
 * calls a counted range's threads make (the count's printf lines: what a GPU's printf costs,
 * its formatting and its contended buffer, is in no other count). <stdio.h> and <cstdio> are
 * included first, so that their declarations (and <cstdio>'s #undef printf) come before the
 * macro and a later #include of either leaves it in place (cuda_emu/device.h declares it). */
#include <stdio.h>
#include <cstdio>
#define printf cuda_emu_printf
namespace std { using ::cuda_emu_printf; } /* std::printf, as <cstdio> names it */

#endif /* CUDA_EMU_PRELUDE_H */
