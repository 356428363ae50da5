/* Cheat: lab 07 with no barrier at all (threads read their neighbours' shared-memory partial
 * sums whenever they get to them: garbage on a GPU), after calling the CPU emulator's own switch
 * that turns its race checks off (cuda_emu::set_checks, cuda_emu/testing.h, which exists for the
 * emulator's own tests). Under emulation the threads of a block take turns, so without the race
 * check the sums would come out right. The emulator's engine is not the student's: its internals
 * are hidden from the object the grader loads, and a file that names them is refused at build.
 * lab: reduction
 * where: emu
 * expect: build=FAIL
 * expect: build-message=set_checks */
#include "reduction.h"

namespace cuda_emu {
void set_checks(bool on);
}

#define THREADS 256

__global__ void sum_no_barrier(float *result, const float *in, long long n)
{
    __shared__ float part[THREADS];
    float acc = 0.0f;
    for (long long i = threadIdx.x; i < n; i += THREADS)
        acc += in[i];
    part[threadIdx.x] = acc;
    for (int s = THREADS / 2; s > 0; s /= 2) { /* no __syncthreads() between the steps */
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
    }
    if (threadIdx.x == 0)
        *result = part[0];
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    cuda_emu::set_checks(false);
    sum_no_barrier<<<1, THREADS, 0, stream>>>(result, in, n);
}
