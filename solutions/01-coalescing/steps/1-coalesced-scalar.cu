/* Lab 01, rung 1 of the ladder: coalesced, one float per thread.
 *
 * Changed from the skeleton: threadIdx.x walks the COLUMN (the contiguous dimension) and a
 * grid-stride loop covers the rows. Why: a warp's 32 loads are now 32 neighbouring floats,
 * 128 bytes in 4 sectors, instead of 32 floats `cols` apart in 32 different sectors; every
 * byte the memory system moves is used. The same for the stores.
 *
 * What is still missing (the reference): each thread moves 4 bytes per instruction and has one
 * load in flight, too few bytes in flight per SM to keep DRAM busy (lab 04). */
#include "coalescing.h"
#include "check.h"

namespace {

__global__ void scale_rows_coalesced(float *__restrict__ out, const float *__restrict__ in,
                                     const float *__restrict__ scale,
                                     const float *__restrict__ bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    /* gridDim.y is at most 65535: loop so that any number of rows is covered */
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r]; /* scale[r], bias[r]: one address, a broadcast */
    }
}

} /* namespace */

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(256);
    const dim3 grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    scale_rows_coalesced<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    CUDA_CHECK_LAUNCH();
}
