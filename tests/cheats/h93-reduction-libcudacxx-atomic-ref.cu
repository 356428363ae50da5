/* Honest: lab 07 with libcu++: each warp's partial sum added into the result through
 * cuda::atomic_ref<float, cuda::thread_scope_device> (<cuda/atomic>), the result cleared
 * first. Correct on a GPU. The CPU emulator does not provide libcu++'s headers: every check
 * "cannot be checked on the CPU emulator: cuda::atomic (<cuda/atomic>) at line N; a GPU grades
 * it", N the line of the #include, nothing earned, exit status 2, never a FAIL.
 * lab: reduction
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include "reduction.h"
#include <cuda/atomic>

#define THREADS 256

__global__ void sum_atomic_ref(float *result, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0) {
        cuda::atomic_ref<float, cuda::thread_scope_device> total(*result);
        total.fetch_add(acc, cuda::memory_order_relaxed);
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 64)
        blocks = 64;
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    sum_atomic_ref<<<(unsigned)blocks, THREADS, 0, stream>>>(result, in, n);
}
