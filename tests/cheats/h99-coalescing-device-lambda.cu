/* Honest: lab 01 written as modern CUDA C++ is: a generic grid-stride kernel template that
 * applies whatever __device__ lambda it is handed, the lambda capturing the pointers and the
 * row length by value, and std::min and std::numeric_limits (constexpr functions of the
 * standard library) called in device code. nvcc compiles a __device__ lambda only with
 * --extended-lambda, and a constexpr host function in a kernel only with
 * --expt-relaxed-constexpr; the CPU emulator compiles both as they are. Consecutive threads
 * take consecutive elements (coalesced); one 32-bit division per element finds the row
 * (0.78x the reference on an H200). The case holds building and correctness on either, not
 * speed.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include <algorithm>
#include <limits>
#include "coalescing.h"

template <typename Index, typename Op>
__global__ void for_each_index(Index n, Op op)
{
    const Index step = (Index)gridDim.x * blockDim.x;
    for (Index i = (Index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        op(i);
}

template <typename Index>
static void launch(float *out, const float *in, const float *scale, const float *bias, int rows,
                   int cols, cudaStream_t stream)
{
    const Index n = (Index)rows * (Index)cols, c = (Index)cols;
    auto row_affine = [=] __device__(Index i) {
        const Index r = std::min<Index>(i / c, std::numeric_limits<Index>::max());
        out[i] = in[i] * scale[r] + bias[r];
    };
    const long long blocks = std::min<long long>(((long long)n + 255) / 256, 8192);
    for_each_index<Index><<<(unsigned)blocks, 256, 0, stream>>>(n, row_affine);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if ((long long)rows * cols <= std::numeric_limits<unsigned>::max())
        launch<unsigned>(out, in, scale, bias, rows, cols, stream);
    else
        launch<unsigned long long>(out, in, scale, bias, rows, cols, stream);
}
