/* Honest but wrong, under the CPU emulator: lab 01's float4 kernel that assumes every row
 * starts 16-byte aligned (g88 on a GPU). The checks with a row length that is not a multiple of
 * 4 fail with UBSan's report at the student's line (01-coalescing/coalescing.cu:27), which
 * the terminal shows; the others pass.
 * lab: coalescing
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: fails-only=33 x 33|7 x 1021|1000 x 37|257 x 4099|hidden
 * expect: output-has=\| 01-coalescing/coalescing\.cu:27:\d+: runtime error: (load of|reference binding to) misaligned address
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h */
#include "coalescing.h"

/* Four columns a thread, as float4: a row starts 16-byte aligned only when cols is a multiple
 * of 4, which this file assumes (the bug) */
__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    const float *row_in = in + (size_t)r * cols;
    float *row_out = out + (size_t)r * cols;
    const float s = scale[r], b = bias[r];
    if (c + 3 < cols) {
        const float4 v = *reinterpret_cast<const float4 *>(row_in + c);
        *reinterpret_cast<float4 *>(row_out + c) =
            make_float4(v.x * s + b, v.y * s + b, v.z * s + b, v.w * s + b);
    } else {
        for (int k = c; k < cols; k++)
            row_out[k] = row_in[k] * s + b;
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + 4 * block.x - 1) / (4 * block.x), (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
