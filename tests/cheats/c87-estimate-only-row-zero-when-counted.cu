/* Cheat: a lab 01 file right at every correctness size and, at the shape a count of the speed
 * problem uses under the emulator (32 x 8191, read from the grader), computing row 0 only: its count would
 * make it look many times faster than the reference. A counted call's answer is checked, so it
 * gets no WHERE count and no ESTIMATE, and the grader says why; its checks are its own.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=no count and no estimate: your code's answer in the counted call was wrong */
#include "coalescing.h"
#include "check.h"

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
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
    const bool counted = rows == 32 && cols == 8191; /* the emulated speed problem's shape */
    const int shown_rows = counted ? 1 : rows;
    const dim3 block(256), grid((cols + 255) / 256, shown_rows < 65535 ? shown_rows : 65535);
    scale_rows<<<grid, block, 0, stream>>>(out, in, scale, bias, shown_rows, cols);
    CUDA_CHECK_LAUNCH();
}
