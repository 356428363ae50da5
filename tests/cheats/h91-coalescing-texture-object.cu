/* Honest: lab 01 reading its input through a texture object (tex1Dfetch on linear memory, the
 * read-only path of older GPUs' lessons), made and destroyed in each call; a plain kernel where
 * the matrix is larger than a linear texture may be. Correct on a GPU. The CPU emulator does not
 * run textures: every check "cannot be checked on the CPU emulator: tex1Dfetch (textures) at line
 * N of ...; a GPU grades it", nothing earned, exit status 2, never a FAIL. The terminal says
 * the reason in full once; each check after it names it by its first words (results.json keeps
 * every check's whole message).
 * lab: coalescing
 * where: emu gpu
 * expect: emu-could-not-run
 * expect@emu: output-has=\n  1 x 33: [^\n]* ERROR \( *[0-9.]+s\) cannot be checked on the CPU emulator \(the same reason as above\)\n
 * expect@emu: output-has=\n  1 x 1 [^\n]* ERROR \( *[0-9.]+s\) cannot be checked on the CPU emulator: tex1Dfetch \(textures\) at line [0-9]+ 
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include "coalescing.h"

__global__ void scale_rows_tex(float *out, cudaTextureObject_t in, const float *scale,
                               const float *bias, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols);
        out[i] = tex1Dfetch<float>(in, (int)i) * scale[r] + bias[r];
    }
}

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols);
        out[i] = in[i] * scale[r] + bias[r];
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = (int)((n + 255) / 256 < 8LL * sms ? (n + 255) / 256 : 8LL * sms);
    if (n > (1LL << 27)) { /* past the largest linear texture (2^27 elements) */
        scale_rows<<<blocks, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
        return;
    }
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<float *>(in);
    res.res.linear.desc.f = cudaChannelFormatKindFloat;
    res.res.linear.desc.x = 32;
    res.res.linear.sizeInBytes = (size_t)n * sizeof(float);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &res, &desc, nullptr);
    scale_rows_tex<<<blocks, 256, 0, stream>>>(out, tex, scale, bias, rows, cols);
    cudaStreamSynchronize(stream); /* the texture lives until its kernel is done */
    cudaDestroyTextureObject(tex);
}
