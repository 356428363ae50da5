/*
 * test_ipc.cu -- device buffers shared between processes, as CUDA IPC shares
 * them: a handle from cudaIpcGetMemHandle, opened in a forked child with
 * cudaIpcOpenMemHandle, maps the same bytes there; and host memory mapped
 * from a shared file can be registered with cudaHostRegister.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dirent.h>

#include "emu_test.h"

namespace {

__global__ void fill_ramp(int *out, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = base + i;
}

/* Child side: adds 1000 to every element a parent wrote, through the handle.
 * Exit status 0 when all went well, else the step that failed. */
__global__ void add_to_all(int *p, int n, int amount)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += amount;
}

/* How many shared memory objects this process has in /dev/shm. */
int objects_of_this_process()
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "cuda-emu.%d.", (int)getpid());
    int count = 0;
    if (DIR *d = opendir("/dev/shm")) {
        while (struct dirent *e = readdir(d))
            count += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
        closedir(d);
    }
    return count;
}

int child_uses_handle(cudaIpcMemHandle_t handle, int n)
{
    int *p = nullptr;
    if (cudaIpcOpenMemHandle(&p, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
        return 1;
    int *h = static_cast<int *>(malloc(n * sizeof(int)));
    if (cudaMemcpy(h, p, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 2;
    for (int i = 0; i < n; ++i)
        if (h[i] != 7 + i)
            return 3;
    free(h);
    add_to_all<<<(n + 127) / 128, 128>>>(p, n, 1000);
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 4;
    if (cudaFree(p) == cudaSuccess) /* an opened mapping is closed, not freed */
        return 5;
    if (cudaIpcCloseMemHandle(p) != cudaSuccess)
        return 6;
    return 0;
}

void test_ipc_handle_between_processes()
{
    const int n = 1000;
    int before = objects_of_this_process();
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
    CU_ASSERT_EQUAL(objects_of_this_process(), before + 1);
    fill_ramp<<<(n + 127) / 128, 128>>>(d, n, 7);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t handle;
    CU_ASSERT_EQUAL(sizeof handle, 64u);
    EXPECT_OK(cudaIpcGetMemHandle(&handle, d));

    /* A process cannot open its own handle (CUDA says the same). */
    int *self = nullptr;
    CU_ASSERT_EQUAL(cudaIpcOpenMemHandle(&self, handle, cudaIpcMemLazyEnablePeerAccess),
                    cudaErrorDeviceUninitialized);
    cudaGetLastError();

    fflush(nullptr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        _exit(child_uses_handle(handle, n));
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);

    int *h = static_cast<int *>(malloc(n * sizeof(int)));
    EXPECT_OK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += h[i] != 1007 + i;
    CU_ASSERT_EQUAL(wrong, 0);
    free(h);
    EXPECT_OK(cudaFree(d));
    CU_ASSERT_EQUAL(objects_of_this_process(), before); /* unlinked with the allocation */

    /* A handle whose allocation is gone cannot be opened. */
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int *p = nullptr;
        _exit(cudaIpcOpenMemHandle(&p, handle, 0) == cudaErrorMapBufferObjectFailed ? 0 : 1);
    }
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* An opened mapping is a tracked allocation: a kernel writing past its end
 * is stopped by the bounds check (in a child, since that ends the process). */
__global__ void write_one_past(int *p, int n) { p[n] = 1; }

void test_ipc_mapping_is_bounds_checked()
{
    const int n = 100;
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
    cudaIpcMemHandle_t handle;
    EXPECT_OK(cudaIpcGetMemHandle(&handle, d));
    fflush(nullptr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        int *p = nullptr;
        if (cudaIpcOpenMemHandle(&p, handle, 0) != cudaSuccess)
            _exit(3);
        write_one_past<<<1, 1>>>(p, n);
        _exit(0); /* not reached: the out-of-bounds write ends the process */
    }
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3);
    EXPECT_OK(cudaFree(d));
}

void test_host_register_shared_file()
{
    const size_t bytes = 3 * 4096;
    char name[64];
    snprintf(name, sizeof name, "/emu-test-%d", (int)getpid());
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    shm_unlink(name);
    CU_ASSERT_FATAL(ftruncate(fd, bytes) == 0);
    int *host = static_cast<int *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    CU_ASSERT_FATAL(host != MAP_FAILED);
    close(fd);

    EXPECT_OK(cudaHostRegister(host, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
    CU_ASSERT_EQUAL(cudaHostRegister(host, bytes, 0), cudaErrorHostMemoryAlreadyRegistered);
    cudaGetLastError();
    cudaPointerAttributes attr;
    EXPECT_OK(cudaPointerGetAttributes(&attr, host + 5));
    CU_ASSERT_EQUAL(attr.type, cudaMemoryTypeHost);

    int *dev = nullptr;
    EXPECT_OK(cudaHostGetDevicePointer(&dev, host, 0));
    int n = (int)(bytes / sizeof(int));
    fill_ramp<<<(n + 255) / 256, 256>>>(dev, n, 3);
    EXPECT_OK(cudaDeviceSynchronize());
    CU_ASSERT_EQUAL(host[0], 3);
    CU_ASSERT_EQUAL(host[n - 1], 3 + n - 1);

    /* Copies to and from the registered buffer, with a default stream argument. */
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, bytes));
    EXPECT_OK(cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice));
    memset(host, 0, bytes);
    EXPECT_OK(cudaMemcpyAsync(host, d, bytes, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaStreamSynchronize(0));
    CU_ASSERT_EQUAL(host[n - 1], 3 + n - 1);
    EXPECT_OK(cudaFree(d));

    EXPECT_OK(cudaHostUnregister(host));
    CU_ASSERT_EQUAL(cudaHostUnregister(host), cudaErrorHostMemoryNotRegistered);
    cudaGetLastError();
    munmap(host, bytes);
}

CU_TestInfo tests[] = {
    {"IPC: a handle opened in another process maps the same bytes", test_ipc_handle_between_processes},
    {"IPC: an opened mapping is bounds-checked", test_ipc_mapping_is_bounds_checked},
    {"cudaHostRegister of a shared file mapping", test_host_register_shared_file},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_ipc_suite() { add_suite("interprocess memory", tests); }
