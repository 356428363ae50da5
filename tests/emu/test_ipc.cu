/*
 * test_ipc.cu -- device buffers shared between processes, as CUDA IPC shares
 * them: a handle from cudaIpcGetMemHandle, opened in a forked child with
 * cudaIpcOpenMemHandle, maps the same bytes there; a descriptor from
 * cuda_emu::export_fd does the same through cuda_emu::import_fd. Device memory
 * is the process's own, like a GPU's: no file, no name, not limited by
 * RLIMIT_FSIZE, gone with the process. Host memory mapped from a shared file
 * can be registered with cudaHostRegister.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dirent.h>

#include <cuda_emu/share_fd.h>

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

/* How many of this process's descriptors are the emulator's memfds. */
int memfds_of_this_process()
{
    int count = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (struct dirent *e = readdir(d)) {
            char path[300], link[256] = "";
            snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
            if (readlink(path, link, sizeof link - 1) > 0)
                count += strncmp(link, "/memfd:cuda-emu", 15) == 0;
        }
        closedir(d);
    }
    return count;
}

/* How many entries of /dev/shm are named for process PID (cuda-emu.PID.N, as
 * the emulator once named device memory). */
int dev_shm_names_of(pid_t pid)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "cuda-emu.%d.", (int)pid);
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
    /* An opened mapping is closed, not freed: cudaFree refuses it and says what to call (its
     * message captured and checked, not left in the suite's output as an error). */
    StderrCapture capture;
    const cudaError_t freed = cudaFree(p);
    const std::string said = capture.stop();
    if (freed == cudaSuccess)
        return 5;
    if (said.find("cudaIpcCloseMemHandle") == std::string::npos)
        return 7;
    if (cudaIpcCloseMemHandle(p) != cudaSuccess)
        return 6;
    return 0;
}

void test_ipc_handle_between_processes()
{
    const int n = 1000;
    const int before = memfds_of_this_process();
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
    CU_ASSERT_EQUAL(memfds_of_this_process(), before); /* anonymous until shared */
    fill_ramp<<<(n + 127) / 128, 128>>>(d, n, 7);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t handle;
    CU_ASSERT_EQUAL(sizeof handle, 64u);
    EXPECT_OK(cudaIpcGetMemHandle(&handle, d));
    CU_ASSERT_EQUAL(memfds_of_this_process(), before + 1); /* shared: now a memfd */
    CU_ASSERT_EQUAL(dev_shm_names_of(getpid()), 0);         /* with no name */

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
    CU_ASSERT_EQUAL(memfds_of_this_process(), before); /* closed with the allocation */

    /* A handle whose allocation is gone cannot be opened, not even when a new
     * allocation's memfd has taken its descriptor number. */
    int *again = nullptr;
    EXPECT_OK(cudaMalloc(&again, n * sizeof(int)));
    cudaIpcMemHandle_t again_handle;
    EXPECT_OK(cudaIpcGetMemHandle(&again_handle, again));
    fflush(nullptr);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        int *p = nullptr, *q = nullptr;
        if (cudaIpcOpenMemHandle(&p, handle, 0) != cudaErrorMapBufferObjectFailed)
            _exit(1);
        cudaGetLastError();
        _exit(cudaIpcOpenMemHandle(&q, again_handle, 0) == cudaSuccess ? 0 : 2);
    }
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_OK(cudaFree(again));
}

/* Device memory ends with its process, as a GPU's ends with its context: a
 * handle a child made and sent before it ended (killed, with no clean-up) opens
 * nothing, and the child left no file behind. */
void test_device_memory_ends_with_its_process()
{
    int pipefd[2];
    CU_ASSERT_FATAL(pipe(pipefd) == 0);
    fflush(nullptr);
    const pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int *d = nullptr;
        cudaIpcMemHandle_t h;
        if (cudaMalloc(&d, 1 << 20) != cudaSuccess || cudaIpcGetMemHandle(&h, d) != cudaSuccess)
            _exit(1);
        if (write(pipefd[1], &h, sizeof h) != (ssize_t)sizeof h)
            _exit(2);
        _exit(0); /* no cudaFree, no exit handlers */
    }
    close(pipefd[1]);
    cudaIpcMemHandle_t h;
    const ssize_t got = read(pipefd[0], &h, sizeof h);
    close(pipefd[0]);
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL_FATAL(got, (ssize_t)sizeof h);
    CU_ASSERT_EQUAL(dev_shm_names_of(pid), 0);
    StderrCapture cap;
    int *p = nullptr;
    CU_ASSERT_EQUAL(cudaIpcOpenMemHandle(&p, h, 0), cudaErrorMapBufferObjectFailed);
    cudaGetLastError();
    CU_ASSERT_TRUE(contains(cap.stop(), "is gone"));
}

/* A descriptor from export_fd, inherited by a child, maps the same bytes there
 * with import_fd; its size is sealed, so that no process holding it can cut it
 * short under the others' mappings; what is not such a descriptor (another
 * file, a memfd whose size could change), or is smaller than asked, does not
 * map. */
void test_descriptor_between_processes()
{
    const int n = 1000;
    int *d = nullptr;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
    fill_ramp<<<(n + 127) / 128, 128>>>(d, n, 7);
    EXPECT_OK(cudaDeviceSynchronize());
    int fd = -1;
    EXPECT_OK(cuda_emu::export_fd(&fd, d));
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    CU_ASSERT_NOT_EQUAL(ftruncate(fd, 0), 0);
    CU_ASSERT_NOT_EQUAL(ftruncate(fd, 1 << 20), 0);

    fflush(nullptr);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        void *p = nullptr;
        if (cuda_emu::import_fd(&p, devnull, n * sizeof(int)) != cudaErrorMapBufferObjectFailed)
            _exit(7);
        cudaGetLastError();
        if (cuda_emu::import_fd(&p, fd, 1 << 20) != cudaErrorMapBufferObjectFailed)
            _exit(8); /* more than the allocation */
        cudaGetLastError();
        const int unsealed = memfd_create("unsealed", MFD_CLOEXEC);
        if (unsealed < 0 || ftruncate(unsealed, 1 << 20) != 0 ||
            cuda_emu::import_fd(&p, unsealed, n * sizeof(int)) != cudaErrorMapBufferObjectFailed)
            _exit(14);
        cudaGetLastError();
        if (cuda_emu::import_fd(&p, fd, n * sizeof(int)) != cudaSuccess)
            _exit(9);
        close(fd); /* the mapping keeps the memory */
        cudaIpcMemHandle_t h;
        if (cudaIpcGetMemHandle(&h, p) != cudaErrorInvalidValue) /* not this process's to share */
            _exit(10);
        cudaGetLastError();
        int *q = static_cast<int *>(p);
        int *h_copy = static_cast<int *>(malloc(n * sizeof(int)));
        if (cudaMemcpy(h_copy, q, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
            _exit(11);
        for (int i = 0; i < n; ++i)
            if (h_copy[i] != 7 + i)
                _exit(12);
        add_to_all<<<(n + 127) / 128, 128>>>(q, n, 1000);
        if (cudaDeviceSynchronize() != cudaSuccess || cudaIpcCloseMemHandle(p) != cudaSuccess)
            _exit(13);
        _exit(0);
    }
    close(fd);
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

    /* Host memory is not device memory: nothing to export. */
    int host_int = 0;
    StderrCapture cap;
    CU_ASSERT_EQUAL(cuda_emu::export_fd(&fd, &host_int), cudaErrorInvalidValue);
    cudaGetLastError();
    CU_ASSERT_TRUE(contains(cap.stop(), "not memory from cudaMalloc"));
    EXPECT_OK(cudaFree(d));
}

/* A file-size limit (a grading sandbox sets one) does not limit device memory:
 * a process may cudaMalloc all the device reports, far past the limit. Sharing
 * an allocation sizes a memfd, which the limit does apply to: that fails with
 * an error and a note, not with SIGXFSZ ending the process. */
__global__ void set_every_page(char *p, size_t n, char v)
{
    for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 4096; i < n;
         i += (size_t)gridDim.x * blockDim.x * 4096)
        p[i] = v;
}

void test_file_size_limit_does_not_limit_device_memory()
{
    fflush(nullptr);
    const pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        const struct rlimit limit = {1 << 20, 1 << 20};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(1);
        size_t free_bytes = 0, total = 0;
        if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess || total < ((size_t)1 << 30))
            _exit(2);
        const size_t big = (size_t)256 << 20; /* 256 times the limit */
        char *p = nullptr;
        if (cudaMalloc(&p, big) != cudaSuccess)
            _exit(3);
        set_every_page<<<64, 256>>>(p, big, 5);
        char last = 0;
        if (cudaMemcpy(&last, p + (big - 4096), 1, cudaMemcpyDeviceToHost) != cudaSuccess ||
            last != 5)
            _exit(4);
        cudaIpcMemHandle_t h;
        if (cudaIpcGetMemHandle(&h, p) != cudaErrorMemoryAllocation)
            _exit(5);
        cudaGetLastError();
        char *small = nullptr;
        if (cudaMalloc(&small, 4096) != cudaSuccess || cudaIpcGetMemHandle(&h, small) != cudaSuccess)
            _exit(6);
        _exit(cudaFree(p) == cudaSuccess && cudaFree(small) == cudaSuccess ? 0 : 7);
    }
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status)); /* not SIGXFSZ */
    CU_ASSERT_EQUAL(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
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
    {"device memory ends with its process", test_device_memory_ends_with_its_process},
    {"a descriptor from export_fd maps the same bytes in another process", test_descriptor_between_processes},
    {"RLIMIT_FSIZE does not limit device memory, only sharing it", test_file_size_limit_does_not_limit_device_memory},
    {"cudaHostRegister of a shared file mapping", test_host_register_shared_file},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_ipc_suite() { add_suite("interprocess memory", tests); }
