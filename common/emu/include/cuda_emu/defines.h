/*
 * cuda_emu/defines.h -- CUDA's declaration qualifiers, spelled for a host compiler.
 *
 * Under the emulator every function is a host function, so __device__,
 * __host__ and __global__ vanish and __constant__ data is ordinary host data.
 * __shared__ and __launch_bounds__ need work per block and per launch; the
 * emu-rewrite step replaces them before the compiler sees the file, so the
 * definitions here only matter in a file that step did not process.
 * Plain C files see these too (as with NVIDIA's host_defines.h), so a header
 * shared by C and CUDA code may mark functions __host__ __device__.
 */
#ifndef CUDA_EMU_DEFINES_H
#define CUDA_EMU_DEFINES_H

#define __host__
#define __device__
#define __global__
#define __constant__
#define __managed__
#define __grid_constant__
/* A kernel's cluster shape: its blocks run as ordinary blocks here (README.md, Launches). */
#define __cluster_dims__(...)
/* The emulator's refusal of a valid CUDA feature it cannot run: a call of a function marked so
 * is a build error at the call's line, which emu-nvcc reports as a refusal (the grader's
 * "could not run", never the student's fault). */
#define CUDA_EMU_REFUSED(feature) \
    __attribute__((error("cuda-emu: cannot be checked on the CPU emulator: " feature)))
#define __device_builtin__
#define __cudart_builtin__
#ifdef __cplusplus
#define __forceinline__ inline __attribute__((always_inline))
#else
#define __forceinline__ static inline __attribute__((always_inline))
#endif
/* In C++ emu-rewrite spells __noinline__ out where a .cu file writes it: as a macro it would
 * also expand inside the attribute lists of libstdc++'s headers, which write
 * __attribute__((__noinline__)) (shared_ptr_base.h in g++ 12, more of them in g++ 13), and a
 * file that includes <memory> or <iostream> would not build. Plain C has no such headers. */
#ifndef __cplusplus
#define __noinline__ __attribute__((noinline))
#endif
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define CUDARTAPI

/* A __shared__ variable needs one copy per block, which only the rewrite can
 * arrange; fail the build where it was skipped instead of sharing one copy. */
#define __shared__                                                                   \
    _Pragma("GCC error \"__shared__ in a file that emu-rewrite did not process: "    \
            "build it with $(call emu_compile_cu,...) from common/emu/emu.mk\"")

#endif /* CUDA_EMU_DEFINES_H */
