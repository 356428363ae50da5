/* Honest: lab 01 done right (one thread an element, a grid-stride loop, coalesced), with a
 * trace left in: thread 0 of every block prints two lines (its block and the elements it
 * starts at) each call. Right; on a GPU the printf costs the driver's formatting and a buffer
 * every printing thread contends for, which the CPU emulator's counts do not hold, so the
 * estimate stands down and says why.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your counted call made [0-9]+ device printf calls \([0-9]+ bytes printed\) */
#include "coalescing.h"
#include <stdio.h>

__global__ void traced(float *out, const float *in, const float *scale, const float *bias,
                       int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    if (threadIdx.x == 0) {
        printf("block %u of %u\n", blockIdx.x, gridDim.x);
        printf("block %u starts at element %llu\n", blockIdx.x,
               (unsigned long long)blockIdx.x * blockDim.x);
    }
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i] * scale[i / cols] + bias[i / cols];
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    traced<<<264, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
