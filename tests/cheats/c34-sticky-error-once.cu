/* Careless: at one size (33 x 33) the call launches, after its honest answer, a kernel that
 * writes through a null pointer, which leaves the process's CUDA context broken (every later
 * call in it would fail too). That check fails naming the error; the grader starts a fresh
 * process for the next one, and the grading goes on: the other checks pass, and none is an
 * error of the grader's.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=^crashed: 
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

static __global__ void write_null(float *p) { p[threadIdx.x] = 1.f; }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    if (rows == 33 && cols == 33)
        write_null<<<1, 32, 0, stream>>>(nullptr);
}
