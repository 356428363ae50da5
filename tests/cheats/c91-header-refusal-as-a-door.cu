/* Cheat: a header the CPU emulator does not provide as a door. The reduction adds the first half
 * of the elements only, and includes libcu++'s <cuda/atomic>, which the emulator refuses, hoping that
 * the refusal reads as something better than the failure a GPU shows. Under the emulator every
 * check is "cannot be checked on the CPU emulator: cuda::atomic (<cuda/atomic>) at line N" with
 * no point earned (exit status 2); on a GPU nothing refuses, and the sums are wrong.
 * lab: reduction
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-correct=FAIL */
#include "reduction.h"
#include <cuda/atomic>

__global__ void sum_first_half(float *result, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n + 1) / 2;
         i += (long long)gridDim.x * blockDim.x)
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
    cudaMemsetAsync(result, 0, sizeof(float), stream);
    sum_first_half<<<64, 256, 0, stream>>>(result, in, n);
}
