/* reset-probe.cu - what a process can still read of its CUDA state after cudaDeviceReset:
 * a buffer mapped as the grader's worker maps one (a shareable allocation exported as a file
 * descriptor, imported, reserved, mapped, made accessible), a cudaMalloc buffer, a stream made
 * before the reset, and the current context (its handle and its ID). Each printed before and
 * after the reset, so that the worker's check of a reset (grader/worker/worker_loop_untrusted.cu)
 * rests on what the driver says, not on a guess.
 *   nvcc -o reset-probe tests/gpu/reset-probe.cu -lcuda && ./reset-probe */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__global__ void touch(float *p) { p[threadIdx.x] = 1.0f; }

static void show(const char *when, void *vmm, void *plain, cudaStream_t s)
{
    cudaPointerAttributes a;
    cudaError_t e;
    e = cudaPointerGetAttributes(&a, vmm);
    printf("%-14s cudaPointerGetAttributes(mapped): %s type %d\n", when, cudaGetErrorName(e),
           e == cudaSuccess ? (int)a.type : -1);
    cudaGetLastError();
    e = cudaPointerGetAttributes(&a, plain);
    printf("%-14s cudaPointerGetAttributes(cudaMalloc): %s type %d\n", when, cudaGetErrorName(e),
           e == cudaSuccess ? (int)a.type : -1);
    cudaGetLastError();
    unsigned int mt = 0;
    CUresult r = cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)vmm);
    printf("%-14s cuPointerGetAttribute(mapped, MEMORY_TYPE): %d value %u\n", when, (int)r, mt);
    CUcontext ctx = NULL;
    r = cuCtxGetCurrent(&ctx);
    unsigned long long id = 0;
    CUresult r2 = ctx ? cuCtxGetId(ctx, &id) : CUDA_ERROR_INVALID_CONTEXT;
    printf("%-14s cuCtxGetCurrent: %d %p, cuCtxGetId: %d %llu\n", when, (int)r, (void *)ctx,
           (int)r2, id);
    e = cudaStreamQuery(s);
    printf("%-14s cudaStreamQuery(stream made before): %s\n", when, cudaGetErrorName(e));
    cudaGetLastError();
}

int main(void)
{
    cudaFree(0);
    int dev = 0;
    cudaGetDevice(&dev);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUmemGenericAllocationHandle h, h2;
    int fd = -1;
    CUdeviceptr p = 0;
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = dev;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (cuMemCreate(&h, gran, &prop, 0) || cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ||
        cuMemImportFromShareableHandle(&h2, (void *)(size_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
        cuMemAddressReserve(&p, gran, 0, 0, 0) || cuMemMap(p, gran, 0, h2, 0) || cuMemSetAccess(p, gran, &acc, 1)) {
        printf("could not map a shareable allocation\n");
        return 1;
    }
    void *plain = NULL;
    cudaMalloc(&plain, 4096);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    touch<<<1, 32, 0, s>>>((float *)p);
    printf("launch before: %s\n", cudaGetErrorName(cudaStreamSynchronize(s)));
    show("before reset", (void *)p, plain, s);
    printf("cudaDeviceReset: %s\n", cudaGetErrorName(cudaDeviceReset()));
    printf("after: cudaGetLastError %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("after: cudaDeviceSynchronize %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    show("after reset", (void *)p, plain, s);
    touch<<<1, 32, 0, s>>>((float *)p);
    printf("launch on the old stream after: %s\n", cudaGetErrorName(cudaGetLastError()));
    touch<<<1, 32>>>((float *)p);
    cudaError_t e = cudaGetLastError();
    cudaError_t e2 = cudaDeviceSynchronize();
    printf("launch on the null stream into the old mapping: %s, sync %s\n", cudaGetErrorName(e),
           cudaGetErrorName(e2));
    return 0;
}
