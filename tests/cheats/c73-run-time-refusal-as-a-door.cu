/* Cheat: a refusal at run time as a door. The file is wrong everywhere (it copies instead of
 * transposing), and on every call first asks for a cluster attribute that the CPU emulator
 * refuses when it meets it (valid CUDA, which a GPU runs), hoping that "could not run" under
 * the emulator hides the failure or earns something. A refusal earns nothing: under the
 * emulator every check could not run, with the refusal named, 0 points and exit status 2; on a
 * GPU nothing refuses and the copy fails.
 * lab: transpose
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-correct=FAIL */
#include "transpose.h"

__global__ void copy_only(float *out, const float *in, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    /* a GPU of compute capability 9.0 allows it; an older one answers an error, ignored */
    cudaFuncSetAttribute(copy_only, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaGetLastError();
    const long long n = (long long)rows * cols;
    if (n > 0)
        copy_only<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(out, in, n);
}
