/* Honest but wrong: a lab 01 file that moves four columns a thread as float4 and assumes every
 * row starts 16-byte aligned, which holds only when the row length is a multiple of 4. The
 * checks with one row, or rows of a multiple of 4, pass. On a GPU a row length of 33 faults with
 * cudaErrorMisalignedAddress, which names no line, and the check is run once more on the CPU
 * emulator; under the emulator every check with an odd row length fails at once. Either way
 * the terminal shows UBSan's report at the student's line, the grader's frames left out. The
 * line is the same in every run; the column is not always given (on an H200, g++ 13: 2 of 8
 * gradings named the line alone), so the pattern below takes the line with or without it.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\| \S*01-coalescing/coalescing\.cu:34(:\d+)?: runtime error: (load of|reference binding to) misaligned address
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h
 * expect@gpu: message=misaligned address
 * expect@gpu: output-has=the CPU emulator ran this check once more
 * expect@emu: fails-only=33 x 33|7 x 1021|1000 x 37|257 x 4099|hidden */
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
