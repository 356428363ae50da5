/* settings.cu -- code that, as it is loaded, asks the environment to turn the
 * race check off (CUDA_EMU_CHECK=0) before its first CUDA call: the emulator
 * has read its settings before any loaded code runs, so the race below is
 * still reported. shim_serve returns 0 when it is. */
#include <cuda_runtime.h>
#include <stdlib.h>

__attribute__((constructor)) static void checks_off(void) { setenv("CUDA_EMU_CHECK", "0", 1); }

__global__ void racy(int *p)
{
    *p = *p + 1; /* every thread: a lost-update race */
}

extern "C" int shim_serve(int)
{
    int *d;
    if (cudaMalloc(&d, sizeof(int)) != cudaSuccess || cudaMemset(d, 0, sizeof(int)) != cudaSuccess)
        return 2;
    racy<<<1, 64>>>(d);
    return cudaDeviceSynchronize() == cudaErrorLaunchFailure ? 0 : 1;
}
