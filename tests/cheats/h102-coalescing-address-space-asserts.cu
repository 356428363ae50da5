/* Honest: lab 01 with defensive device asserts: the first thread of each block asserts that
 * the pointers it is handed are global memory (__isGlobal, an address-space predicate of CUDA's
 * device runtime) before a plain grid-stride loop, one element a thread, consecutive threads on
 * consecutive elements (coalesced). nvcc compiles it and a GPU grades it; the CPU emulator does
 * not provide __isGlobal, so its compiler stops there: that is the emulator's gap, not the
 * file's error. Under the emulator every check could not run (the refusal names __isGlobal and
 * its line), nothing earned, exit status 2, never "did not build" and never a FAIL.
 * lab: coalescing
 * where: emu gpu
 * expect: emu-could-not-run
 * expect@emu: message=__isGlobal
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include <cassert>
#include "coalescing.h"

__global__ void scale_rows_checked(float *out, const float *in, const float *scale,
                                   const float *bias, long long n, int cols)
{
    if (threadIdx.x == 0)
        assert(__isGlobal(out) && __isGlobal(in) && __isGlobal(scale) && __isGlobal(bias));
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const long long r = i / cols;
        out[i] = in[i] * scale[r] + bias[r];
    }
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    long long blocks = (n + 255) / 256;
    if (blocks > 65535)
        blocks = 65535;
    if (blocks < 1)
        blocks = 1;
    scale_rows_checked<<<(unsigned)blocks, 256, 0, stream>>>(out, in, scale, bias, n, cols);
}
