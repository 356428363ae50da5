/* Honest but wrong: lab 01 whose kernel writes far past its output (`out[i + 100000000]`, an
 * index gone wrong by a hundred million elements), launched with CUDA_CHECK_LAUNCH. The address
 * is in no memory of the process: the advice is the index's, with how far past the buffer it
 * is, never the host pointer's (copy host data with cudaMemcpy), which is only for host memory
 * the process mapped; the launch macro's line is no place of the fault.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: gpu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\S*01-coalescing/coalescing\.cu:29\b
 * expect: output-has=kernel scale_rows_kernel, block \(\d+,\d+,0\), thread \(\d+,\d+,0\)
 * expect: output-has=an index out of range
 * expect: output-has=\d+ bytes \(\d+ elements of 4 bytes\) past the end of
 * expect: log-lacks=cudaMemcpy\) and pass that pointer
 * expect: output-has=Next: lab 01 \(coalescing\) stopped at a fault of your code \(a kernel writes outside every allocation\) at \S*01-coalescing/coalescing\.cu:29\b
 * expect: output-has=one fault \(at \S*01-coalescing/coalescing\.cu:29\)
 * expect: output-lacks=coalescing\.cu:39\b|cudaMemcpy\) and pass|worker_loop_untrusted|shim_untrusted|worker_untrusted|exec\.cpp|launch\.h|Shadow byte */
#include "coalescing.h"
#include "check.h"

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i + 100000000] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    CUDA_CHECK_LAUNCH();
}
