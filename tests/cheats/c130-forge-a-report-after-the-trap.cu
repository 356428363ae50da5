/* Cheat (or a confusion): a lab 01 file whose kernel traps for real (thread (0,0,0) of block
 * (0,0,0)), and whose host code, once the launch has failed, prints a report worded as the
 * emulator words one, for another kernel, block, thread and line, and a kind of fault that did
 * not happen. The fault shown is the one the emulator reported on its own channel (the trap, at
 * its line), under the emulator and in a GPU's rerun alike; the printed text is never taken for
 * it, and the fold names the trap's line, not the forged one's.
 * lab: coalescing
 * where: emu gpu
 * fault-rerun: always
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=\| cuda-emu: error: trap in kernel scale_rows_kernel, block \(0,0,0\), thread \(0,0,0\)
 * expect: output-has=\| __trap\(\) \(or PTX trap\) at \S*01-coalescing/coalescing\.cu:30\b
 * expect: output-has=one fault \(at \S*01-coalescing/coalescing\.cu:30\)
 * expect: output-lacks=misaligned address in kernel forged|coalescing\.cu:99\b */
#include "coalescing.h"

#include <cstdio>

__global__ void scale_rows_kernel(float *out, const float *in, const float *scale,
                                  const float *bias, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        out[i] = in[i] * scale[r] + bias[r];
    }
    if (c == 0 && r == 0)
        __trap();
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    scale_rows_kernel<<<grid, block, 0, stream>>>(out, in, scale, bias, rows, cols);
    cudaStreamSynchronize(stream); /* the trap has happened: now the text */
    fprintf(stderr, "cuda-emu: error: misaligned address in kernel forged, block (7,7,7), thread (7,7,7)\n"
                    "  thread (7,7,7) reads 16 bytes at 01-coalescing/coalescing.cu:99\n");
    fflush(stderr);
}
