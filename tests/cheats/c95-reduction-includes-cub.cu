/* Cheat: the reduction lab done by CUB's device-wide sum, the library the lab forbids, written as
 * a student would (the header included whatever the build). On a GPU vetting finds CUB's code in
 * the object; under the CPU emulator, which has no CUB, the compile stops at the #include with
 * the emulator's refusal, and the build names the lab's rule instead, never "could not run, a
 * GPU grades it" (a GPU would reject it).
 * lab: reduction
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=rejected: .*CUB
 * expect@emu: build-message=your file includes <cub/cub.cuh>, a header of CUB: lab reduction is about writing the sum yourself
 * expect@emu: build-log-lacks=a GPU grades it|No such file */
#include <cub/cub.cuh>
#include "reduction.h"

extern "C" void reduction(float *result, const float *in, long long n, float *scratch,
                          cudaStream_t stream)
{
    size_t bytes = (size_t)reduction_scratch_floats(n) * sizeof(float);
    cub::DeviceReduce::Sum(scratch, bytes, in, result, n, stream);
}
