/* Honest: lab 01 whose block is sized by the occupancy API for a kernel compiled with
 * __launch_bounds__(256): cudaOccupancyMaxPotentialBlockSize must answer at most 256 (on a GPU
 * and on the emulator alike), and cudaFuncGetAttributes' maxThreadsPerBlock is checked before
 * the launch. A grid-stride loop over rows, threads across columns.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error */
#include "coalescing.h"
#include "check.h"

__global__ void __launch_bounds__(256) scale_rows_bounded(float *out, const float *in,
                                                          const float *scale, const float *bias,
                                                          int rows, int cols)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
            const size_t i = (size_t)r * cols + c;
            out[i] = in[i] * scale[r] + bias[r];
        }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    int min_grid = 0, block = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_rows_bounded, 0, 0));
    cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, scale_rows_bounded));
    if (block > attr.maxThreadsPerBlock)
        block = attr.maxThreadsPerBlock;
    const int per_row = (cols + block - 1) / block;
    const dim3 grid(per_row, rows < 65535 ? rows : 65535);
    scale_rows_bounded<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    CUDA_CHECK_LAUNCH();
}
