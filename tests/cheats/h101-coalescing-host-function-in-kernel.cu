/* Honest, and wrong for a GPU: lab 01 whose kernel calls a helper written without __device__,
 * and std::swap (not constexpr in C++17, so a host function) in device code: a beginner's file
 * that g++ compiles and the CPU emulator runs correctly, and that nvcc refuses ("calling a
 * __host__ function ... from a __global__ function is not allowed"). Under the emulator the
 * build checks the file with nvcc's front end too, and fails it with nvcc's errors, as a GPU's
 * build does, never "every check OK" for a file that earns nothing on a GPU.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=calling a __host__ function\("affine
 * expect: build-message=identifier "std::swap<float> ?" is undefined in device code
 * expect@emu: build-message=does not build for a GPU
 * expect: no-accusation */
#include <utility>
#include "coalescing.h"

static float affine(float x, float s, float b) { return x * s + b; } /* no __device__ */

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y) { /* a row per block row, its columns across x */
        float s = scale[r], b = bias[r];
        std::swap(s, b);
        std::swap(s, b);
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
            out[(size_t)r * cols + c] = affine(in[(size_t)r * cols + c], s, b);
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const dim3 grid((unsigned)((cols + 255) / 256 < 8 ? (cols + 255) / 256 : 8),
                    (unsigned)(rows < 4096 ? rows : 4096));
    scale_rows<<<grid, 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
