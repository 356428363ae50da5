/* Cheat: the reduction lab done by the library the lab is about (CUB's device-wide sum).
 * lab: reduction
 * where: emu gpu
 * expect: build=FAIL */
#include "reduction.h"
#if !defined(CUDA_EMU)
#include <cub/cub.cuh>
#endif

extern "C" void reduction(float *result, const float *in, long long n, float *scratch,
                          cudaStream_t stream)
{
#if !defined(CUDA_EMU)
    size_t bytes = (size_t)reduction_scratch_floats(n) * sizeof(float);
    cub::DeviceReduce::Sum(scratch, bytes, in, result, n, stream);
#else
    /* the emulator has no CUB: name it anyway, as a student's file would */
    extern void cub_DeviceReduce_Sum(void);
    cub_DeviceReduce_Sum();
#endif
}
