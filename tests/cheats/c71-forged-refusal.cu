/* Cheat: a forged refusal. The file is wrong everywhere (it copies instead of transposing) and,
 * under the emulator only, makes the compiler print the emulator's own refusal words, hoping a
 * "could not run" hides the failure or earns something. A refusal earns nothing under the
 * emulator (every check could not run, 0 points, exit status 2), and on a GPU nothing refuses:
 * the copy fails there.
 * lab: transpose
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-correct=FAIL */
#include "transpose.h"

#ifdef CUDA_EMU
#pragma GCC error "cuda-emu: cannot be checked on the CPU emulator: a feature of this file"
#endif

__global__ void copy_only(float *out, const float *in, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    if (n > 0)
        copy_only<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(out, in, n);
}
