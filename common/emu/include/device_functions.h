/*
 * device_functions.h -- older code includes this for __syncthreads and the
 * intrinsics; under the emulator they all come with cuda_runtime.h.
 */
#include "cuda_runtime.h"
