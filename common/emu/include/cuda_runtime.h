/*
 * cuda_runtime.h -- the CUDA runtime for the CPU emulator (what nvcc includes
 * into every .cu file, and what host code includes by name).
 *
 * The C API is in cuda_runtime_api.h; this header adds what C++ code expects
 * from NVIDIA's cuda_runtime.h: the device functions, the templates that take
 * a kernel or a T** directly, and the launch machinery the emu-rewrite step
 * targets. The emulator itself is described in common/emu/README.md.
 */
#ifndef CUDA_EMU_CUDA_RUNTIME_H
#define CUDA_EMU_CUDA_RUNTIME_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __CUDA_RUNTIME_H__ /* NVIDIA's guard: headers test it to see this one is in */

#include "cuda_runtime_api.h"
#include "device_launch_parameters.h"
#include "vector_functions.h"
#include "vector_types.h"

#ifdef __cplusplus

/* What NVIDIA's runtime headers bring in with them, so a program that
 * compiles with nvcc without including these itself compiles here too. */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <new>
#include <utility>

#include "cuda_emu/defines.h"
#include "cuda_emu/device.h"
#include "cuda_emu/launch.h"
#include "cuda_emu/ptx.h"

/* ---- C++ conveniences with CUDA's signatures ----------------------------- */

template <class T>
CUDA_EMU_INLINE cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged(reinterpret_cast<void **>(devPtr), size, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return ::cudaMallocPitch(reinterpret_cast<void **>(devPtr), pitch, width, height);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream)
{
    return ::cudaMallocAsync(reinterpret_cast<void **>(devPtr), size, stream);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::cudaHostGetDevicePointer(reinterpret_cast<void **>(pDevice), pHost, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaIpcOpenMemHandle(T **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    return ::cudaIpcOpenMemHandle(reinterpret_cast<void **>(devPtr), handle, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool,
                                                    cudaStream_t stream)
{
    return ::cudaMallocFromPoolAsync(reinterpret_cast<void **>(ptr), size, memPool, stream);
}
/* The older form of cudaMemPrefetchAsync and cudaMemAdvise: a device ordinal,
 * or cudaCpuDeviceId for the host. */
CUDA_EMU_INLINE cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                                 cudaStream_t stream = 0)
{
    struct cudaMemLocation loc = {dstDevice == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                                               : cudaMemLocationTypeDevice,
                                  dstDevice == cudaCpuDeviceId ? 0 : dstDevice};
    return ::cudaMemPrefetchAsync(devPtr, count, loc, 0, stream);
}
CUDA_EMU_INLINE cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                          enum cudaMemoryAdvise advice, int device)
{
    struct cudaMemLocation loc = {device == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                                            : cudaMemLocationTypeDevice,
                                  device == cudaCpuDeviceId ? 0 : device};
    return ::cudaMemAdvise(devPtr, count, advice, loc);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0,
                                                     unsigned int flags = cudaMemAttachSingle)
{
    return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
CUDA_EMU_INLINE cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return ::cudaEventCreateWithFlags(event, flags);
}

template <class T>
CUDA_EMU_INLINE cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry)
{
    return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value)
{
    return ::cudaFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig)
{
    return ::cudaFuncSetCacheConfig(reinterpret_cast<const void *>(func), cacheConfig);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func,
                                                                      int numBlocks, int blockSize)
{
    return ::cudaOccupancyAvailableDynamicSMemPerBlock(
        dynamicSmemSize, reinterpret_cast<const void *>(func), numBlocks, blockSize);
}

/* The block size with the most resident threads per SM (the largest such size on a tie), each
 * size with the dynamic shared memory blockSizeToDynamicSMemSize gives it, and the grid that
 * fills the device at that size: the search NVIDIA's header makes, every multiple of the warp
 * from the kernel's own limit (cudaFuncGetAttributes: its __launch_bounds__ and registers) down. */
template <class UnaryFunction, class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = 0)
{
    if (minGridSize == nullptr || blockSize == nullptr || !func)
        return cudaErrorInvalidValue;
    int sms = 0, limit = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    struct cudaFuncAttributes attr;
    cudaError_t attr_err = cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(func));
    if (attr_err != cudaSuccess)
        return attr_err;
    limit = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit)
        limit = blockSizeLimit;
    int best_size = 0, best_threads = 0, best_blocks = 0;
    for (int aligned = (limit + 31) / 32 * 32; aligned > 0; aligned -= 32) {
        const int size = aligned < limit ? aligned : limit;
        int blocks = 0;
        cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, reinterpret_cast<const void *>(func), size,
            (size_t)blockSizeToDynamicSMemSize(size), flags);
        if (err != cudaSuccess)
            return err;
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
    }
    *blockSize = best_size;
    *minGridSize = best_blocks * sms;
    return cudaSuccess;
}
template <class UnaryFunction, class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, blockSizeToDynamicSMemSize, blockSizeLimit, cudaOccupancyDefault);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                                        T func, size_t dynamicSMemSize = 0,
                                                                        int blockSizeLimit = 0,
                                                                        unsigned int flags = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, [dynamicSMemSize](int) { return dynamicSMemSize; },
        blockSizeLimit, flags);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                      size_t dynamicSMemSize = 0,
                                                      int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize,
                                                       blockSizeLimit, cudaOccupancyDefault);
}

template <class... P>
CUDA_EMU_INLINE cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return cuda_emu::launch_with_array(func, "cudaLaunchKernel",
                                       cuda_emu::config(gridDim, blockDim, sharedMem, stream), args,
                                       std::index_sequence_for<P...>{});
}

/* The forms that name the kernel by address (const void *): the kernel must
 * be one emu-rewrite registered (a __global__ function at namespace scope, not
 * a template); otherwise cudaErrorInvalidDeviceFunction, with a message. */
CUDA_EMU_INLINE cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return cuda_emu::launch_registered(func, cuda_emu::config(gridDim, blockDim, sharedMem, stream), args);
}

/* A cooperative launch: every block resident at once (too many blocks for
 * the device is cudaErrorCooperativeLaunchTooLarge), and grid.sync() works. */
template <class... P>
CUDA_EMU_INLINE cudaError_t cudaLaunchCooperativeKernel(void (*func)(P...), dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem = 0,
                                               cudaStream_t stream = 0)
{
    cuda_emu::LaunchConfig cfg = cuda_emu::config(gridDim, blockDim, sharedMem, stream);
    cfg.cooperative = true;
    return cuda_emu::launch_with_array(func, "cudaLaunchCooperativeKernel", cfg, args,
                                       std::index_sequence_for<P...>{});
}
CUDA_EMU_INLINE cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem = 0,
                                               cudaStream_t stream = 0)
{
    cuda_emu::LaunchConfig cfg = cuda_emu::config(gridDim, blockDim, sharedMem, stream);
    cfg.cooperative = true;
    return cuda_emu::launch_registered(func, cfg, args);
}

/* cudaLaunchKernelEx: the arguments converted to the kernel's parameter types, as CUDA's
 * template does; the attributes as launch_ex_config (cuda_emu/launch.h) takes them. */
template <class... ExpTypes, class... ActTypes>
CUDA_EMU_INLINE cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                               void (*kernel)(ExpTypes...), ActTypes &&...args)
{
    cuda_emu::LaunchConfig cfg;
    cudaError_t err = cuda_emu::launch_ex_config(config, &cfg);
    if (err != cudaSuccess)
        return err;
    err = [&](ExpTypes... coerced) {
        return cuda_emu::launch(kernel, "cudaLaunchKernelEx", cfg,
                                [kernel](auto... a) { kernel(a...); }, coerced...);
    }(std::forward<ActTypes>(args)...);
    if (err == cudaSuccess)
        cuda_emu::launch_ex_done(config);
    return err;
}

template <class T>
CUDA_EMU_INLINE cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                      size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return cuda_emu::symbol_copy(const_cast<T *>(&symbol), sizeof(T), offset, src, count, kind,
                                 true);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                        size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return cuda_emu::symbol_copy(const_cast<T *>(&symbol), sizeof(T), offset, dst, count, kind,
                                 false);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                           size_t offset = 0,
                                           enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                           cudaStream_t stream = 0)
{
    cudaError_t err = cudaStreamQuery(stream);
    return err != cudaSuccess ? err : cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                             size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                             cudaStream_t stream = 0)
{
    cudaError_t err = cudaStreamQuery(stream);
    return err != cudaSuccess ? err : cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    *devPtr = const_cast<void *>(static_cast<const void *>(&symbol));
    return cudaSuccess;
}
template <class T>
CUDA_EMU_INLINE cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
    (void)symbol;
    *size = sizeof(T);
    return cudaSuccess;
}

/* ---- The per-thread default stream -----------------------------------------
 * With CUDA_API_PER_THREAD_DEFAULT_STREAM defined before this header (what nvcc's
 * --default-stream per-thread does, and emu-nvcc's: in a .cu file a #define comes too late,
 * after the runtime's headers that nvcc and emu-nvcc include first, as on a GPU), stream 0
 * and the calls without a stream (cudaMemcpy, cudaMemset ...) of this file mean the calling
 * host thread's default stream, as cudaStreamPerThread does, where CUDA maps the calls to
 * their _ptsz and _ptds variants. Here each call below, NAME(...), is a macro that marks the
 * host thread for the length of the call; cudaStreamLegacy still names the legacy stream. (A
 * call spelled ::NAME(...) does not compile in such a file, nor is one through a pointer to
 * the function, or NAME<T>(...), counted on the per-thread stream.) */
namespace cuda_emu {
void default_stream_per_thread(bool on); /* nests */
struct PerThreadDefaultStream {
    PerThreadDefaultStream() { default_stream_per_thread(true); }
    ~PerThreadDefaultStream() { default_stream_per_thread(false); }
    PerThreadDefaultStream(const PerThreadDefaultStream &) = delete;
};
} // namespace cuda_emu

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define cudaMemcpy(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpy(__VA_ARGS__))
#define cudaMemcpyToSymbol(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpyToSymbol(__VA_ARGS__))
#define cudaMemcpyFromSymbol(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpyFromSymbol(__VA_ARGS__))
#define cudaMemcpy2D(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpy2D(__VA_ARGS__))
#define cudaMemset(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemset(__VA_ARGS__))
#define cudaMemset2D(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemset2D(__VA_ARGS__))
#define cudaGraphUpload(...) (::cuda_emu::PerThreadDefaultStream(), cudaGraphUpload(__VA_ARGS__))
#define cudaGraphLaunch(...) (::cuda_emu::PerThreadDefaultStream(), cudaGraphLaunch(__VA_ARGS__))
#define cudaStreamBeginCapture(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamBeginCapture(__VA_ARGS__))
#define cudaStreamEndCapture(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamEndCapture(__VA_ARGS__))
#define cudaStreamGetCaptureInfo(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamGetCaptureInfo(__VA_ARGS__))
#define cudaStreamIsCapturing(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamIsCapturing(__VA_ARGS__))
#define cudaMemcpyAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpyAsync(__VA_ARGS__))
#define cudaMemcpyToSymbolAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpyToSymbolAsync(__VA_ARGS__))
#define cudaMemcpyFromSymbolAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpyFromSymbolAsync(__VA_ARGS__))
#define cudaMemcpy2DAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemcpy2DAsync(__VA_ARGS__))
#define cudaMemsetAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemsetAsync(__VA_ARGS__))
#define cudaStreamQuery(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamQuery(__VA_ARGS__))
#define cudaStreamGetFlags(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamGetFlags(__VA_ARGS__))
#define cudaStreamGetPriority(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamGetPriority(__VA_ARGS__))
#define cudaStreamGetId(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamGetId(__VA_ARGS__))
#define cudaEventRecord(...) (::cuda_emu::PerThreadDefaultStream(), cudaEventRecord(__VA_ARGS__))
#define cudaStreamWaitEvent(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamWaitEvent(__VA_ARGS__))
#define cudaStreamAddCallback(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamAddCallback(__VA_ARGS__))
#define cudaStreamAttachMemAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamAttachMemAsync(__VA_ARGS__))
#define cudaStreamSynchronize(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamSynchronize(__VA_ARGS__))
#define cudaLaunchKernel(...) (::cuda_emu::PerThreadDefaultStream(), cudaLaunchKernel(__VA_ARGS__))
#define cudaLaunchKernelExC(...) (::cuda_emu::PerThreadDefaultStream(), cudaLaunchKernelExC(__VA_ARGS__))
#define cudaLaunchKernelEx(...) (::cuda_emu::PerThreadDefaultStream(), cudaLaunchKernelEx(__VA_ARGS__))
#define cudaLaunchHostFunc(...) (::cuda_emu::PerThreadDefaultStream(), cudaLaunchHostFunc(__VA_ARGS__))
#define cudaMemPrefetchAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMemPrefetchAsync(__VA_ARGS__))
#define cudaLaunchCooperativeKernel(...) (::cuda_emu::PerThreadDefaultStream(), cudaLaunchCooperativeKernel(__VA_ARGS__))
#define cudaStreamGetAttribute(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamGetAttribute(__VA_ARGS__))
#define cudaStreamSetAttribute(...) (::cuda_emu::PerThreadDefaultStream(), cudaStreamSetAttribute(__VA_ARGS__))
#define cudaMallocAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMallocAsync(__VA_ARGS__))
#define cudaFreeAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaFreeAsync(__VA_ARGS__))
#define cudaMallocFromPoolAsync(...) (::cuda_emu::PerThreadDefaultStream(), cudaMallocFromPoolAsync(__VA_ARGS__))
#endif /* CUDA_API_PER_THREAD_DEFAULT_STREAM */

#endif /* __cplusplus */

#pragma GCC visibility pop
#endif /* CUDA_EMU_CUDA_RUNTIME_H */
