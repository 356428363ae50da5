/* probe.cu - what a CUDA program touches: a context, an allocation, a kernel, memory info and
 * a virtual-memory allocation exported as a file descriptor (what the grader's workers do).
 * Prints one line and exits 0 when everything worked. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void add_one(int *p) { p[threadIdx.x] += 1; }

#define TRY(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("probe: %s failed: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(void)
{
    int *d = NULL, h[32] = {0};
    TRY(cudaMalloc(&d, sizeof h));
    TRY(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    add_one<<<1, 32>>>(d);
    TRY(cudaGetLastError());
    TRY(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    size_t fr = 0, tot = 0;
    TRY(cudaMemGetInfo(&fr, &tot));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUmemGenericAllocationHandle hd;
    CUresult r = cuMemCreate(&hd, gran, &prop, 0);
    int fd = -1;
    if (r == CUDA_SUCCESS)
        r = cuMemExportToShareableHandle(&fd, hd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    printf("probe: ok=%d kernel=%d free=%zu MiB of %zu MiB, vmm export %s (fd %d)\n",
           h[0] == 1, h[31] == 1, fr >> 20, tot >> 20, r == CUDA_SUCCESS ? "ok" : "failed", fd);
    return h[0] == 1 && r == CUDA_SUCCESS ? 0 : 1;
}
