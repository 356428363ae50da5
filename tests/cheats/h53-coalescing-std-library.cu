/* Honest: lab 01 with the C++ standard library on the host side: <memory>, <iostream>,
 * <vector> and <algorithm> included before the contract header, the launch shape kept in a
 * std::shared_ptr, a std::vector of per-row offsets never needed on the device but built and
 * checked on the host, and one std::cerr line on the first call; one helper marked
 * __noinline__. Coalesced: a row's columns across the threads of a block, rows over the
 * grid's y. (Headers such as <memory> spell __attribute__((__noinline__)) themselves.) A call
 * of a noinline function per element is slow (0.47x the reference on an H200): the case holds
 * building and correctness, not speed.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>
#include "coalescing.h"

struct launch_shape {
    int threads; /* per block */
};

__noinline__ __device__ float affine(float x, float s, float b) { return x * s + b; }

__global__ void scale_bias(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float s = scale[r], b = bias[r];
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
            const size_t i = (size_t)r * cols + c;
            out[i] = affine(in[i], s, b);
        }
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    static bool said = false;
    const long long n = (long long)rows * cols;
    if (n == 0)
        return;
    const std::shared_ptr<launch_shape> shape = std::make_shared<launch_shape>(launch_shape{256});
    std::vector<long long> row_start((size_t)rows);
    for (int r = 0; r < rows; r++)
        row_start[(size_t)r] = (long long)r * cols;
    if (!std::is_sorted(row_start.begin(), row_start.end()))
        std::cerr << "row offsets out of order\n";
    if (!said) {
        std::cerr << "coalescing: " << rows << " x " << cols << ", " << shape->threads << " threads a block\n";
        said = true;
    }
    const dim3 grid((unsigned)std::min((cols + shape->threads - 1) / shape->threads, 64),
                    (unsigned)std::min(rows, 65535));
    scale_bias<<<grid, shape->threads, 0, stream>>>(out, in, scale, bias, rows, cols);
}
