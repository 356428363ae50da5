/* Honest but wrong: a lab 01 file whose kernel, for its first element, also writes 3000
 * floats past it, beyond the output's end on every small size. The emulator stops the worker
 * (the write lands outside every allocation, in a page nothing maps, or in another buffer
 * another thread writes too: each said as such); the terminal says the fault at the student's
 * own line (01-coalescing/coalescing.cu:N, and the kernel's block and thread), with the frames
 * of the grader and the emulator that ran the kernel left out, the allocation it missed said as
 * the grader's buffer; the whole report stays in the check's log, which is named.
 * lab: coalescing
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=your code's fault \(the whole report: \S*coalescing\.\d+\.log\)
 * expect: output-has=(writes outside every allocation in kernel scale_rows_kernel|AddressSanitizer: (heap-buffer-overflow|SEGV))
 * expect: output-has=\S*01-coalescing/coalescing\.cu:\d+
 * expect: output-has=block \(0,0,0\), thread \(0,0,0\)
 * expect: output-lacks=worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|made at grader/|Shadow byte */
#include "coalescing.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
        if (i == 0)
            out[i + 3000] = 0.0f; /* the bug: an index from another size */
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
}
