/* Honest: lab 01 with its kernel in a profiler range of its own (cudaProfilerStart before the
 * launch, cudaProfilerStop after it), as for `ncu --profile-from-start off` or nsys's
 * capture range: it changes nothing the grader sees. Coalesced, so fast enough; under the
 * emulator its count, and so its WHERE line and its ESTIMATE, are those of the same kernel
 * without the range.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect@gpu: speed=OK
 * expect@emu: where-lacks=\(the mark: 0\.50x\), below it
 * expect@emu: output-has=ESTIMATE \(not a grade\): about [0-9.]+x the reference on the [^(]*\(the mark: 0\.50x\), at or above the mark */
#include "coalescing.h"
#include <cuda_profiler_api.h>

__global__ void scale_rows(float *__restrict__ out, const float *__restrict__ in,
                           const float *__restrict__ scale, const float *__restrict__ bias,
                           int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        if (c < cols)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(256), grid((cols + 255) / 256, rows < 65535 ? rows : 65535);
    cudaProfilerStart();
    scale_rows<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    cudaProfilerStop();
}
