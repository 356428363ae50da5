/* Honest: lab 01 done right (one thread an element, a grid-stride loop, coalesced), with a
 * __nanosleep(200) in the loop (left from a back-off that is no longer needed). Right; on a GPU
 * every thread sleeps about 200 ns an element it writes, time that the CPU emulator's counts
 * (loads, stores, instructions) do not hold, so the estimate stands down and says why.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your counted call made [0-9]+ __nanosleep calls \([0-9]+ ns asked for in all\) */
#include "coalescing.h"

__global__ void napping(float *out, const float *in, const float *scale, const float *bias,
                        int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        __nanosleep(200);
        out[i] = in[i] * scale[i / cols] + bias[i / cols];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    napping<<<264, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
