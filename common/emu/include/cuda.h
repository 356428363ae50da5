/*
 * cuda.h -- the driver API header, for the CPU emulator: only its version
 * macro, which host code reads to pick features. The driver API itself (cu*)
 * is not emulated; use the runtime API.
 */
#ifndef CUDA_EMU_CUDA_H
#define CUDA_EMU_CUDA_H

#define CUDA_VERSION 13000

#include "cuda_runtime_api.h"

#endif /* CUDA_EMU_CUDA_H */
