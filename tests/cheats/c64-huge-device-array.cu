/* Cheat: declare a 480 MiB __device__ array. It is allocated in GPU memory whenever the object
 * loads, whatever the problem size (a 4 GB GPU sizes its problems to what its memory holds,
 * the grader's buffers first), and nvcc gives it a host copy of the same size. The build
 * refuses an object that takes more than 64 MiB, with what it found, the limit and why: such
 * space belongs in cudaMalloc, sized to the call.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=too large: .*480 MiB of code and static data.*limit is 64 MiB
 * expect: build-message=largest symbol is 'hoard', 480 MiB
 * expect: build-message=cudaMalloc
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
__device__ float hoard[120u << 20]; /* 480 MiB */
static __global__ void keep_hoard(float *out) { out[0] += hoard[threadIdx.x]; }
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    if (rows == -1)
        keep_hoard<<<1, 1, 0, stream>>>(out);
}
