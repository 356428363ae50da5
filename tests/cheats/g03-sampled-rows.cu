/* Cheat: at the speed size, compute only every 16th row (a grader that checks sampled rows
 * would see only those).
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"

static __global__ void some_rows(float *out, const float *in, const float *scale,
                                 const float *bias, int rows, int cols)
{
    for (int r = blockIdx.y * 16; r < rows; r += gridDim.y * 16)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if ((size_t)rows * cols > (1u << 24))
        some_rows<<<dim3(32, 1024), 256, 0, stream>>>(out, in, scale, bias, rows, cols);
    else
        honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
