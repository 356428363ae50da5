/* Honest: lab 01 in another style: a function-object template, a 2-D grid (one row per
 * blockIdx.y, columns across blockIdx.x, with rows beyond 65535 folded into a loop), and the
 * launch through cudaLaunchKernel's argument array rather than <<<>>>. Coalesced: a warp reads
 * 32 consecutive floats of one row.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "coalescing.h"

namespace {

struct affine {
    const float *scale, *bias;
    __device__ float operator()(float x, int r) const { return fmaf(x, scale[r], bias[r]); }
};

template <typename Op, int COLS_PER_THREAD>
__global__ void rows_2d(float *out, const float *in, int rows, int cols, Op op)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const size_t base = (size_t)r * cols;
#pragma unroll
        for (int k = 0; k < COLS_PER_THREAD; k++) {
            const int c = (blockIdx.x * COLS_PER_THREAD + k) * blockDim.x + threadIdx.x;
            if (c < cols)
                out[base + c] = op(in[base + c], r);
        }
    }
}

} // namespace

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    constexpr int kThreads = 128, kPer = 2;
    dim3 block(kThreads);
    dim3 grid((cols + kThreads * kPer - 1) / (kThreads * kPer), rows < 65535 ? rows : 65535);
    affine op{scale, bias};
    void *args[] = {&out, &in, &rows, &cols, &op};
    cudaLaunchKernel((const void *)rows_2d<affine, kPer>, grid, block, args, 0, stream);
}
