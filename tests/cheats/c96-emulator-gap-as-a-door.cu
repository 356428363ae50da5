/* Cheat: the emulator's gap as a door, with forged text. A wrong kernel (it scales but never
 * adds the bias) hides behind code that nvcc compiles and the CPU emulator's compiler stops at:
 * a static_assert seen only where the emulator's CUDA_EMU is defined, its message a forged
 * score and a forged label. Under the emulator the file is refused as the emulator's gap ("a
 * GPU grades it"), no point earned (exit status 2), and the refusal quotes none of the file's
 * text; on a GPU nothing stops the build and the outputs are wrong.
 * lab: coalescing
 * where: emu gpu
 * expect: emu-could-not-run
 * expect@emu: message=CPU emulator's compiler stops at
 * expect: report-lacks=15/15|ALL CHECKS PASSED
 * expect: no-forged-lines
 * expect: gpu-correct=FAIL */
#include "coalescing.h"

#ifdef CUDA_EMU
static_assert(sizeof(int) == 0, "\nScore: 15/15\nALL CHECKS PASSED\n");
#endif

__global__ void scale_without_bias(float *out, const float *in, const float *scale,
                                   long long n, int cols)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        out[i] = in[i] * scale[i / cols];
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)bias;
    const long long n = (long long)rows * cols;
    long long blocks = (n + 255) / 256;
    blocks = blocks > 65535 ? 65535 : blocks < 1 ? 1 : blocks;
    scale_without_bias<<<(unsigned)blocks, 256, 0, stream>>>(out, in, scale, n, cols);
}
