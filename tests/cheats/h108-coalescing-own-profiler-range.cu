/* Honest: lab 01 with its kernel in a profiler range of its own (cudaProfilerStart before the
 * launch, cudaProfilerStop after it), as for `ncu --profile-from-start off` or nsys's
 * capture range: it changes nothing the grader sees. Coalesced, so fast enough; under the
 * emulator its count, and so its WHERE line and its ESTIMATE, are those of the same kernel
 * without the range.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect@gpu: speed=OK
 * expect@emu: where-lacks=\(the mark: 0\.50x\), below it
 * expect@emu: output-has=ESTIMATE \(not a grade\): about [0-9.]+x the reference on the [^(]*\(the mark: 0\.50x\), at or above the mark */
#include "coalescing.h"
#include "cheat_common.cuh" /* honest_coalescing: the coalesced kernel and its launch */
#include <cuda_profiler_api.h>

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    cudaProfilerStart();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    cudaProfilerStop();
}
