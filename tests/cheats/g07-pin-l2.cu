/* Cheat: a slow (uncoalesced) kernel helped by pinning the input in L2 with an access-policy
 * window, so that some of it survives between calls.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    int dev = 0, max_window = 0, max_persist = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = (void *)in;
    attr.accessPolicyWindow.num_bytes = (size_t)max_window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    slow_coalescing(out, in, scale, bias, rows, cols, stream);
}
