/* Honest: lab 01 whose own helpers carry the names of the CPU emulator's internals
 * (set_checks, settings, report_line, count_flush, a global g_check), some of them in a
 * namespace of its own called cuda_emu_free: defined in this file, so they are the student's.
 * Only calling the emulator's own functions of those names is refused.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "coalescing.h"
#include <stdio.h>

static bool g_check = true; /* a switch of the student's own: check the launch below */

namespace cuda_emu_free {
struct settings {
    int threads;
};
static settings set_checks(bool on) { return settings{on ? 256 : 128}; }
} // namespace cuda_emu_free

__global__ void count_flush(float *out, const float *in, const float *scale, const float *bias,
                            int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        if (c < cols)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

static void report_line(cudaError_t e)
{
    if (e != cudaSuccess)
        fprintf(stderr, "coalescing: launch failed: %s\n", cudaGetErrorString(e));
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const cuda_emu_free::settings s = cuda_emu_free::set_checks(true);
    const dim3 grid((cols + s.threads - 1) / s.threads, rows < 65535 ? rows : 65535);
    count_flush<<<grid, s.threads, 0, stream>>>(out, in, scale, bias, rows, cols);
    if (g_check)
        report_line(cudaGetLastError());
}
