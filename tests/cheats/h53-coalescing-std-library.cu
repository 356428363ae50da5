/* Honest: lab 01 with the C++ standard library on the host side: <memory>, <iostream>,
 * <vector> and <algorithm> included before the contract header, the launch shape kept in a
 * std::shared_ptr, a std::vector of per-row offsets never needed on the device but built and
 * checked on the host, and one std::cerr line on the first call. Coalesced, one thread per
 * element. (Headers such as <memory> spell __attribute__((__noinline__)) themselves, which a
 * compiler that defines __noinline__ as a macro must read first.)
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
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

__global__ void scale_bias(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = in[i] * scale[i / cols] + bias[i / cols];
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
    const long long blocks = std::min<long long>((n + shape->threads - 1) / shape->threads, 65535LL * 32);
    scale_bias<<<(unsigned)blocks, shape->threads, 0, stream>>>(out, in, scale, bias, rows, cols);
}
