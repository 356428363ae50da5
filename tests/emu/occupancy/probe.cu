/*
 * occupancy/probe.cu -- the emulator's occupancy against NVIDIA's own calculator: for every
 * kernel figure (registers, static shared bytes), block size, dynamic shared memory, carveout,
 * cache configuration and opt-in limit of a grid of them, cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * must answer what the CUDA toolkit's cuda_occupancy.h computes from the emulated device's
 * properties and the kernel's attributes. Prints each difference (the first 20) and a count;
 * exits 1 if any. Built where a CUDA toolkit's headers are (emu_tests.mk: EMU_CUDA_INCLUDE), with
 * the header's path in CUDA_OCCUPANCY_H; the kernel's figures are written by hand
 * (cuda_emu::register_kernel_resources), as emu-nvcc's table would give them.
 */
#include <cstdio>
#include <cuda_runtime.h>

#include CUDA_OCCUPANCY_H

__global__ void probed(float *p) { p[0] = 1.f; }

namespace {

const int kRegisters[] = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 100, 128, 168, 200, 232, 255};
const int kThreads[] = {1, 32, 33, 64, 96, 100, 128, 160, 192, 256, 288, 320, 384, 448, 512, 640, 768, 896, 1000, 1024};
const int kStatic[] = {0, 100, 1000, 4000, 16640, 40000, 48000};
const int kDynamic[] = {0, 1000, 20000, 30000, 60000, 100000, 150000, 200000, 231000};
const int kCarveout[] = {-1, 0, 10, 25, 50, 100};

/* The emulator's answers for PROBED, set up so, against cuda_occupancy.h's, for every block size
 * and dynamic size; returns the differences (printed while fewer than 20 were). */
long compare(const cudaOccDeviceProp &device, int optin, int cache, int carveout, int regs,
             int static_bytes, long *cases, long printed)
{
    cudaDeviceReset();
    if (carveout >= 0)
        cudaFuncSetAttribute(probed, cudaFuncAttributePreferredSharedMemoryCarveout, carveout);
    cudaFuncSetCacheConfig(probed, (cudaFuncCache)cache);
    const cuda_emu::KernelResources row = {(const void *)probed, regs, 1, static_bytes, 0, 0, 0};
    cuda_emu::register_kernel_resources(&row, 1);
    if (optin)
        cudaFuncSetAttribute(probed, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 - static_bytes);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, probed);
    cudaOccFuncAttributes function(attr);
    cudaOccDeviceState state;
    state.carveoutConfig = carveout;
    state.cacheConfig = (cudaOccCacheConfig)cache;
    long differ = 0;
    for (int threads : kThreads)
        for (int dynamic : kDynamic) {
            int mine = -1, theirs = 0;
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mine, probed, threads, dynamic);
            cudaOccResult result;
            if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &function, &state, threads,
                                                        dynamic) == CUDA_OCC_SUCCESS)
                theirs = result.activeBlocksPerMultiprocessor;
            ++*cases;
            if (mine != theirs && printed + differ++ < 20)
                printf("opt-in %d, cache %d, carveout %d, %d registers, %d static bytes, %d threads, "
                       "%d dynamic bytes: the emulator %d blocks, cuda_occupancy.h %d\n",
                       optin, cache, carveout, regs, static_bytes, threads, dynamic, mine, theirs);
        }
    return differ;
}

} // namespace

int main()
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const cudaOccDeviceProp device(prop);
    long cases = 0, differ = 0;
    for (int optin = 0; optin < 2; ++optin)
        for (int cache = 0; cache < 4; ++cache)
            for (int carveout : kCarveout) {
                if (cache > 0 && carveout >= 0)
                    continue; /* a carveout set outweighs the cache configuration */
                for (int regs : kRegisters)
                    for (int static_bytes : kStatic)
                        differ += compare(device, optin, cache, carveout, regs, static_bytes, &cases, differ);
            }
    printf("occupancy: %ld cases, %ld differ from cuda_occupancy.h\n", cases, differ);
    return differ != 0;
}
