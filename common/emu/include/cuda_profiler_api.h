/*
 * cuda_profiler_api.h -- cudaProfilerStart/Stop for the CPU emulator, where
 * there is no profiler: they succeed and do nothing.
 */
#ifndef CUDA_EMU_CUDA_PROFILER_API_H
#define CUDA_EMU_CUDA_PROFILER_API_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include "cuda_runtime_api.h"

#pragma GCC visibility pop
#endif /* CUDA_EMU_CUDA_PROFILER_API_H */
