/* Honest but wrong: a lab 01 file with three bugs on two lines, each met in other checks: one
 * line reads one past the input where there is one row and writes one past the output where
 * there is one column (two bugs on one line: a READ and a WRITE), and another line traps where
 * there are 7 rows. Each distinct bug is its own report at its own line (the fold keys on the
 * kind and the place, so the WRITE is not folded into the READ), and a later fault never points
 * at the first one's rerun as if it said where.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: always
 * expect: fails-only=^(1 x 1|1 x 33.*|31 x 1.*|7 x 1021.*)$
 * expect: no-accusation
 * expect: output-has=\| READ of size 4
 * expect: output-has=\| WRITE of size 4
 * expect: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel
 * expect: output-has=\S*01-coalescing/coalescing\.cu:30\b
 * expect: output-has=\S*01-coalescing/coalescing\.cu:28\b
 * expect: output-lacks=the lab's first fault above says where */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        if (rows == 7)
            __trap();
        /* two bugs on one line: a read past `in` (one row), a write past `out` (one column) */
        out[i + (cols == 1)] = in[i + (rows == 1)] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
