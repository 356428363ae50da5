/*
 * device_launch_parameters.h -- threadIdx, blockIdx, blockDim, gridDim, warpSize.
 *
 * In CUDA these are read-only registers of the running thread. Under the
 * emulator one host thread runs every CUDA thread as a fiber, and the scheduler
 * stores the running fiber's indices in these globals before it switches to
 * it; a fiber only runs between such switches, so it always reads its own.
 */
#ifndef CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H
#define CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H
#define __DEVICE_LAUNCH_PARAMETERS_H__ /* NVIDIA's guard: headers test it to see this one is in */

#include "vector_types.h"

#ifdef __cplusplus
extern "C" {
#endif

extern uint3 threadIdx; /* index of the running thread within its block */
extern uint3 blockIdx;  /* index of the running block within the grid */
extern dim3 blockDim;   /* block shape of the running launch */
extern dim3 gridDim;    /* grid shape of the running launch */

#ifdef __cplusplus
} /* extern "C" */
static constexpr int warpSize = 32; /* lanes per warp, as on every NVIDIA GPU */
#else
enum { warpSize = 32 };
#endif

#endif /* CUDA_EMU_DEVICE_LAUNCH_PARAMETERS_H */
