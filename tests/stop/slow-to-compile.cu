/* A lab 01 submission for tests/stop/test_stop.py: the skeleton, and a computation the
 * compiler must finish before it can go on (about half a minute of g++ time), so that a stop
 * sent "while the student's file compiles" always finds the compiler running. Never built to
 * the end: every build of it is stopped. */
#include "coalescing.h"

/* A million steps of a linear congruential generator, at compile time. Each static_assert
 * below is its own evaluation (the compiler caches a call with the same argument). */
constexpr unsigned long long churn(unsigned long long seed)
{
    unsigned long long x = seed;
    for (int i = 0; i < 1000; i++) /* two loops: each stays under g++'s constexpr loop limit */
        for (int j = 0; j < 1000; j++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}
static_assert(churn(1) != 0, "slow on purpose");
static_assert(churn(2) != 0, "slow on purpose");
static_assert(churn(3) != 0, "slow on purpose");
static_assert(churn(4) != 0, "slow on purpose");
static_assert(churn(5) != 0, "slow on purpose");
static_assert(churn(6) != 0, "slow on purpose");

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
