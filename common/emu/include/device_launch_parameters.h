/*
 * device_launch_parameters.h -- threadIdx, blockIdx, blockDim, gridDim, warpSize.
 *
 * In CUDA these are read-only registers of the running thread. Under the
 * emulator one host thread runs every CUDA thread as a fiber, and the scheduler
 * stores the running fiber's indices in these variables (one set per host
 * thread) before it switches to it; a fiber only runs between such switches,
 * so it always reads its own. To the program they are const: a kernel cannot
 * assign them, the compiler may keep them in registers across calls (right,
 * since a fiber always sees its own values), and the access checks skip them.
 * The runtime, which writes them, defines CUDA_EMU_WRITES_BUILTINS.
 */
#ifndef CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H
#define CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __DEVICE_LAUNCH_PARAMETERS_H__ /* NVIDIA's guard: headers test it to see this one is in */

#include "vector_types.h"

#ifdef __cplusplus
namespace cuda_emu {
/* The type of blockDim and gridDim in C++: a uint3 by another name, so a dim3 wherever one is
 * needed (dim3 d = blockDim, a dim3 parameter: dim3's constructor from a uint3). Not dim3 itself:
 * g++ takes a const variable of a type with a constructor for writable, and would hook and
 * reload every read of it (two calls an iteration of a grid-stride loop). */
struct builtin_dim3 : uint3 {};
} // namespace cuda_emu
#define CUDA_EMU_BUILTIN_DIM3 cuda_emu::builtin_dim3
extern "C" {
#else
#define CUDA_EMU_BUILTIN_DIM3 dim3
#endif

#ifdef CUDA_EMU_WRITES_BUILTINS
#define CUDA_EMU_BUILTIN extern __thread __attribute__((tls_model("initial-exec")))
#else
#define CUDA_EMU_BUILTIN extern __thread __attribute__((tls_model("initial-exec"))) const
#endif
CUDA_EMU_BUILTIN uint3 threadIdx; /* index of the running thread within its block */
CUDA_EMU_BUILTIN uint3 blockIdx;  /* index of the running block within the grid */
CUDA_EMU_BUILTIN CUDA_EMU_BUILTIN_DIM3 blockDim; /* block shape of the running launch */
CUDA_EMU_BUILTIN CUDA_EMU_BUILTIN_DIM3 gridDim;  /* grid shape of the running launch */
#undef CUDA_EMU_BUILTIN
#undef CUDA_EMU_BUILTIN_DIM3

#ifdef __cplusplus
} /* extern "C" */
static constexpr int warpSize = 32; /* lanes per warp, as on every NVIDIA GPU */
#else
enum { warpSize = 32 };
#endif

#pragma GCC visibility pop
#endif /* CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H */
