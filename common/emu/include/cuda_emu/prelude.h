/*
 * cuda_emu/prelude.h -- what emu-rewrite puts at the top of every rewritten
 * .cu file: the macros nvcc predefines for a CUDA source, and the runtime
 * header nvcc includes implicitly. __CUDA_ARCH__ stays undefined: the file is
 * compiled once, for the host, and that is the pass that macro marks.
 */
#ifndef CUDA_EMU_PRELUDE_H
#define CUDA_EMU_PRELUDE_H

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0

#include <cuda_runtime.h>

#endif /* CUDA_EMU_PRELUDE_H */
