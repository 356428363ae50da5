/* Cheat: a texture as a door. The file is right for the visible sizes and wrong for any other
 * (it leaves out each row's bias), and it reads its input through a texture object, which the
 * CPU emulator refuses, hoping that the refusal reads as something better than the failure a
 * GPU shows. Under the emulator every check is "cannot be checked on the CPU emulator" with no
 * point earned (exit status 2); on a GPU nothing refuses, and the hidden cases fail.
 * lab: coalescing
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-correct=FAIL */
#include "coalescing.h"

__global__ void rows_tex(float *out, cudaTextureObject_t in, const float *scale,
                         const float *bias, int rows, int cols, int wrong)
{
    const long long n = (long long)rows * cols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols);
        out[i] = tex1Dfetch<float>(in, (int)i) * scale[r] + (wrong ? 0.0f : bias[r]);
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    /* the visible sizes, as the lab's table lists them: right there, wrong anywhere else */
    static const int seen[][2] = {{1, 1}, {1, 33}, {31, 1}, {33, 33}, {7, 1021}, {1000, 37},
                                  {257, 4099}};
    int wrong = 1;
    for (unsigned i = 0; i < sizeof seen / sizeof seen[0]; i++)
        if (seen[i][0] == rows && seen[i][1] == cols)
            wrong = 0;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<float *>(in);
    res.res.linear.desc.f = cudaChannelFormatKindFloat;
    res.res.linear.desc.x = 32;
    res.res.linear.sizeInBytes = (size_t)n * sizeof(float);
    cudaTextureDesc desc = {};
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &res, &desc, nullptr);
    rows_tex<<<(unsigned)((n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024), 256, 0, stream>>>(
        out, tex, scale, bias, rows, cols, wrong);
    cudaStreamSynchronize(stream);
    cudaDestroyTextureObject(tex);
}
