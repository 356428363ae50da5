/* Honest: a correct lab 01 solution whose names are the reference's and the grader's own (a
 * template kernel with the reference's name and another body, helpers called like grader
 * functions). Names never clash: it must be graded like any other correct file.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"

template <typename Index>
__global__ void scale_rows_vec4(float *out, const float *in, const float *scale,
                                const float *bias, Index rows, Index cols)
{
    const Index c = blockIdx.x * (Index)blockDim.x + threadIdx.x;
    for (Index r = blockIdx.y; r < rows; r += gridDim.y)
        if (c < cols)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

__global__ void l2_flush_kernel(void) {}
__global__ void branch_free_kernel(void) {}
__global__ void slice_kernel(void) {}

int harness_check_exact(int x) { return x + 1; }
void dbuf_alloc(void) {}
extern "C" void ref_coalescing(void) {}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const dim3 block(256), grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    scale_rows_vec4<int><<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    if (harness_check_exact(0) == 2)
        ref_coalescing();
}
