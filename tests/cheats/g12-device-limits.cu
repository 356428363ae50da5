/* Cheat (or curiosity): change every device setting a process may change, on the first call,
 * then answer honestly and fast: the L2 set-aside for persisting accesses at its maximum, an
 * access-policy window on its stream, shared memory preferred over L1, a large printf FIFO,
 * a 1 GiB malloc heap, and the largest stack per thread the device accepts (which reserves
 * that much local memory for every thread the GPU can hold: much of its memory). None of it
 * may make the grader fail with an error of its own: the settings stay in this process's
 * context, or, where the memory they hold leaves the grader short, the check fails naming GPU
 * memory.
 * lab: coalescing
 * where: gpu
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

static void change_device_settings(const void *window, cudaStream_t stream)
{
    int dev = 0, persist = 0, max_window = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)persist);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = (void *)window;
    attr.accessPolicyWindow.num_bytes = (size_t)max_window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);
    cudaDeviceSetLimit(cudaLimitPrintfFifoSize, (size_t)64 << 20);
    cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)1 << 30);
    for (size_t stack = (size_t)1 << 20; stack >= 1024; stack /= 2)
        if (cudaDeviceSetLimit(cudaLimitStackSize, stack) == cudaSuccess)
            break;
    cudaGetLastError(); /* the refusals on the way down are expected */
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int changed;
    if (!changed++)
        change_device_settings(in, stream);
    fast_coalescing(out, in, scale, bias, rows, cols, stream);
}
