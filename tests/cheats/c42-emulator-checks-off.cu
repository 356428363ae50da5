/* Cheat: lab 07 with no barrier at all: every thread stores its partial sum to shared memory
 * and the last thread of the block adds them all up, whenever it gets there (garbage on a GPU,
 * where it gets there long before the others have stored), after calling the CPU emulator's own
 * switch that turns its race checks off (cuda_emu::set_checks, cuda_emu/testing.h, which exists
 * for the emulator's own tests). Where the threads of a block ran one after the other in index
 * order and nothing checked, the last thread would find every partial stored. The emulator's
 * engine is not the student's: its internals are hidden from the object the grader loads, and a
 * file that names them is refused at build, naming the function.
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
    if (threadIdx.x == THREADS - 1) { /* no __syncthreads(): "the others are done by now" */
        float total = 0.0f;
        for (int t = 0; t < THREADS; ++t)
            total += part[t];
        *result = total;
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    cuda_emu::set_checks(false);
    sum_no_barrier<<<1, THREADS, 0, stream>>>(result, in, n);
}
