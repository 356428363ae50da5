/* Cheat: a lab 01 file that runs the skeleton's strided kernel, then the coalesced one, and
 * brackets the strided one with cudaProfilerStop() and cudaProfilerStart(): under the CPU
 * emulator those two end and begin a range of counting, so the grader's count, which the
 * ESTIMATE is made of, would hold the coalesced kernel alone and put the file above the
 * mark; so would the emulator's own call for the grader's range, cuda_emu_count, were it the
 * code's to make. The grader's range is its own: the code's profiler calls change nothing in
 * it, cuda_emu_count refuses a call from the code under test, and the estimate is the strided
 * kernel's, below the mark.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about [0-9.]+x the reference on the [^(]*\(the mark: 0\.50x\), at or above the mark
 * expect: output-has=ESTIMATE \(not a grade\): about 0\.[0-9]+x the reference on the [^(]*\(the mark: 0\.50x\), below it */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <cuda_profiler_api.h>

extern "C" int cuda_emu_count(int on) __attribute__((weak)); /* the emulator's, if there */

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    cudaProfilerStop();
    if (cuda_emu_count)
        cuda_emu_count(0);
    slow_coalescing(out, in, scale, bias, rows, cols, stream);
    cudaStreamSynchronize(stream);
    if (cuda_emu_count)
        cuda_emu_count(1);
    cudaProfilerStart();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
