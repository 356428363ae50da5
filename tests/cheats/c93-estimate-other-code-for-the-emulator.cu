/* Cheat: a lab 01 file that compiles the coalesced kernel for the CPU emulator (#ifdef CUDA_EMU,
 * which the emulator's build defines) and the skeleton's strided one for a GPU: right
 * everywhere, and under the emulator, checks and count alike, it is the fast kernel, at both
 * sizes, so no count can tell. The estimate reads the file as compiled: one that names CUDA_EMU
 * runs other code there than on a GPU, and gets no estimate.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your file compiles other code for the CPU emulator than for a GPU \(it names CUDA_EMU\) */
#include "coalescing.h"

__global__ void scale(float *out, const float *in, const float *scale, const float *bias,
                      int rows, int cols)
{
#ifdef CUDA_EMU /* the emulator: a warp's lanes on consecutive columns */
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c < cols)
        out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
#else /* a GPU: a thread a row, its lanes a row apart */
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
#endif
}

void coalescing(float *out, const float *in, const float *scale_, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
#ifdef CUDA_EMU
    scale<<<dim3((cols + 255) / 256, rows), 256, 0, stream>>>(out, in, scale_, bias, rows, cols);
#else
    scale<<<(rows + 127) / 128, 128, 0, stream>>>(out, in, scale_, bias, rows, cols);
#endif
}
