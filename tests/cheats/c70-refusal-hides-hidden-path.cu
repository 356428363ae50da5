/* Cheat: a refusal as a door. The transpose is right for the visible sizes and wrong for any
 * other, and the wrong path holds inline PTX outside the emulator's subset, hoping that a
 * refusal under the emulator reads as something better than the failure a GPU shows. Under
 * the emulator every check is "cannot be checked on the CPU emulator" with no point earned
 * (exit status 2); on a GPU nothing refuses, and the hidden cases fail.
 * lab: transpose
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-correct=FAIL */
#include "transpose.h"

__global__ void copy_t(float *out, const float *in, int rows, int cols, int wrong)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    float v = in[(long long)r * cols + c];
    if (wrong) {
        float w;
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(w) : "f"(v)); /* 2^v: not a copy */
        v = w;
    }
    out[(long long)c * rows + r] = v;
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    /* the visible sizes, as the lab's table lists them: right there, wrong anywhere else */
    static const int seen[][2] = {{1, 1}, {1, 33}, {31, 1}, {33, 31}, {7, 1021}, {100, 68},
                                  {1000, 37}, {2052, 4100}, {1028, 1030}};
    int wrong = 1;
    for (unsigned i = 0; i < sizeof seen / sizeof seen[0]; i++)
        if (seen[i][0] == rows && seen[i][1] == cols)
            wrong = 0;
    dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    copy_t<<<grid, block, 0, stream>>>(out, in, rows, cols, wrong);
}
