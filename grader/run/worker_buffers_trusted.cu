/* worker_buffers_trusted.cu - TRUSTED SIDE: memory the harness shares with its workers.
 * Device buffers are CUDA virtual-memory allocations exported as file descriptors (under the
 * emulator, the memfd behind the allocation); host buffers are sealed memfds, pinned in every
 * process that maps them. Each has an id never reused; a worker maps it the first time a call
 * names it (worker_protocol_trusted.cu sends the descriptor) and unmaps it before it is freed.
 * See worker_trusted.h and worker_state_trusted.h. */
#include "worker_state_trusted.h"
#include "../../common/check.h"
#include "../../common/device.h"
#include "../../common/util.h"

#if defined(CUDA_EMU)
#include <cuda_emu/share_fd.h>
#else
#include <cuda.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Shared buffers                                                                              */

shared_buf *shared_find(const void *p)
{
    const char *c = (const char *)p;
    for (int i = 0; i < MAX_SHARED; i++)
        if (W.buf[i].base && c >= W.buf[i].base && c < W.buf[i].base + W.buf[i].bytes)
            return &W.buf[i];
    return NULL;
}

static shared_buf *shared_new(void *base, size_t bytes)
{
    for (int i = 0; i < MAX_SHARED; i++)
        if (!W.buf[i].base) {
            shared_buf *b = &W.buf[i];
            memset(b, 0, sizeof *b);
            b->base = (char *)base;
            b->bytes = bytes;
            b->id = W.next_id++;
            b->fd = -1; /* set by the caller where there is one */
            return b;
        }
    fatal("more than %d shared buffers", MAX_SHARED);
}

#if !defined(CUDA_EMU)
#define CU_CHECK(call)                                                                      \
    do {                                                                                    \
        const CUresult r_ = (call);                                                         \
        if (r_ != CUDA_SUCCESS) {                                                           \
            const char *n_ = "?";                                                           \
            cuGetErrorName(r_, &n_);                                                        \
            fatal("%s failed: %s (%s:%d)", #call, n_, __FILE__, __LINE__);                  \
        }                                                                                   \
    } while (0)

static CUmemAllocationProp shareable_prop(void)
{
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}
#endif

cudaError_t workers_try_device_alloc(size_t bytes, void **out)
{
    *out = NULL;
#if !defined(CUDA_EMU)
    if (W.isolated) {
        /* A virtual-memory allocation that can be exported as a file descriptor. */
        CUmemAllocationProp prop = shareable_prop();
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        const size_t size = (bytes + gran - 1) / gran * gran;
        CUmemGenericAllocationHandle h;
        CUresult r = cuMemCreate(&h, size, &prop, 0);
        if (r == CUDA_ERROR_OUT_OF_MEMORY)
            return cudaErrorMemoryAllocation;
        CU_CHECK(r);
        CUdeviceptr ptr;
        CU_CHECK(cuMemAddressReserve(&ptr, size, 0, 0, 0));
        /* Mapping needs a little device memory of its own (page tables): short of it, undone */
        r = cuMemMap(ptr, size, 0, h, 0);
        CUmemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        if (r == CUDA_SUCCESS) {
            r = cuMemSetAccess(ptr, size, &access, 1);
            if (r != CUDA_SUCCESS)
                cuMemUnmap(ptr, size);
        }
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            cuMemAddressFree(ptr, size);
            cuMemRelease(h);
            return cudaErrorMemoryAllocation;
        }
        CU_CHECK(r);
        int fd = -1;
        CU_CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        shared_buf *b = shared_new((void *)ptr, size);
        b->fd = fd;
        b->vmm = (unsigned long long)h;
        *out = (void *)ptr;
        return cudaSuccess;
    }
#endif
    void *p = NULL;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: the next call must not see it */
        return e;
    }
    CUDA_CHECK(e);
#if defined(CUDA_EMU)
    if (W.isolated) { /* the emulator's allocation, shared as a memfd */
        int fd = -1;
        CUDA_CHECK(cuda_emu::export_fd(&fd, p));
        shared_new(p, bytes)->fd = fd;
    }
#endif
    *out = p;
    return cudaSuccess;
}

void *workers_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (workers_try_device_alloc(bytes, &p) != cudaSuccess)
        cuda_fail(cudaErrorMemoryAllocation, "allocating device memory", __FILE__, __LINE__);
    return p;
}

int workers_reclaim_memory(memory_reclaim *m)
{
    memset(m, 0, sizeof *m);
    size_t free_now = 0, total = 0;
    if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    m->total = total;
    m->free_before = m->free_after = free_now;
    if (W.inprocess || W.w[IMPL_STUDENT].pid <= 0)
        return 0; /* no process of the student's holds anything apart */
    workers_kill(IMPL_STUDENT);
    m->student_ended = 1;
    /* The driver gives a dead process's memory back as it tears the process down, which may
     * end a little after the process is reaped: read until the figure holds still. */
    size_t last = free_now;
    int steady = 0;
    const double start = wall_seconds();
    while (steady < 3 && wall_seconds() - start < 3.0) {
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
            cudaGetLastError();
            break;
        }
        steady = free_now == last ? steady + 1 : 0;
        last = free_now;
    }
    m->free_after = last;
    return 0;
}

void workers_device_free(void *p)
{
    shared_buf *b = shared_find(p);
    if (!b) {
        CUDA_CHECK(cudaFree(p));
        return;
    }
    const int fd = b->fd;
    const unsigned long long vmm = b->vmm;
    const size_t size = b->bytes;
    workers_unregister(p); /* every worker unmaps it first */
#if !defined(CUDA_EMU)
    if (fd >= 0) {
        CUDA_CHECK(cudaDeviceSynchronize());
        CU_CHECK(cuMemUnmap((CUdeviceptr)p, size));
        CU_CHECK(cuMemAddressFree((CUdeviceptr)p, size));
        CU_CHECK(cuMemRelease((CUmemGenericAllocationHandle)vmm));
        close(fd);
        return;
    }
#endif
    (void)vmm, (void)size;
    if (fd >= 0)
        close(fd); /* the emulator's descriptor: the memory goes with the last mapping */
    CUDA_CHECK(cudaFree(p));
}


void workers_unregister(void *base)
{
    shared_buf *b = shared_find(base);
    if (!b)
        return;
    /* Workers that mapped it unmap it first (CUDA requires it before the free). */
    for (int impl = 0; impl < MAX_IMPLS; impl++) {
        if (!(b->mapped & (1u << impl)) || W.w[impl].pid <= 0)
            continue;
        static proto_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = PROTO_MAGIC;
        c.op = PROTO_FORGET;
        c.n_bufs = 1;
        c.buf[0].id = b->id;
        proto_reply r;
        jmp_buf *saved = W.fail_jump;
        W.fail_jump = NULL; /* a worker that will not unmap is killed, which unmaps it */
        if (W.w[impl].pid > 0) {
            worker_signal(&W.w[impl], SIGCONT);
            const ssize_t n = write(W.w[impl].sock, &c, sizeof c);
            struct pollfd pf = {W.w[impl].sock, POLLIN, 0};
            if (n != (ssize_t)sizeof c || poll(&pf, 1, 5000) != 1 ||
                read(W.w[impl].sock, &r, sizeof r) != (ssize_t)sizeof r)
                workers_kill(impl);
            else
                worker_signal(&W.w[impl], SIGSTOP);
        }
        W.fail_jump = saved;
    }
    if (b->host) {
        cudaHostUnregister(b->base);
        munmap(b->base, b->bytes);
        close(b->fd);
    }
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
/* A large mapping's pages are made on this many threads at once before it is pinned. */
#define HOST_FILL_THREADS 4
#define HOST_FILL_MIN ((size_t)64 << 20) /* smaller mappings: cudaHostRegister makes them */

/* One part of a fresh mapping, its pages made (zero-filled, as a first touch makes them). A
 * kernel without MADV_POPULATE_WRITE, or too little memory, leaves them to cudaHostRegister,
 * which makes what is missing as before and reports a shortage as an error, where a write to
 * a page that cannot be made would end this process (SIGBUS). */
typedef struct host_fill_part {
    char *p;
    size_t bytes;
} host_fill_part;

static void *host_fill_main(void *arg)
{
    const host_fill_part *part = (const host_fill_part *)arg;
    (void)madvise(part->p, part->bytes, MADV_POPULATE_WRITE);
    return NULL;
}

/* Make the pages of fresh mapping [p, p + bytes) on HOST_FILL_THREADS threads (as many as the
 * machine has CPUs, if fewer; none on one CPU, where cudaHostRegister making them as it pins is
 * faster), so that the registering finds them made and only pins them. This one does the last
 * part, and any part whose thread could not start. Lab 05's three 1 GiB arrays, made by a
 * harness started ahead of its lab while the lab before waits for it: that wait went from
 * 0.93-1.30 s to 0.63-0.79 s (8 students each, side by side on one H200). Made on 4 threads
 * and then registered, they took 0.71-0.78 s against 1.13-1.16 s registered alone; 8 and 16
 * threads were no faster (tests/gpu/pin-probe.cu; tests/gpu/results/h200-bench-grading.txt). */
static void host_fill(char *p, size_t bytes)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (bytes < HOST_FILL_MIN || cpus < 2)
        return;
    const int n = cpus < HOST_FILL_THREADS ? (int)cpus : HOST_FILL_THREADS;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), each = bytes / (size_t)n / page * page;
    host_fill_part part[HOST_FILL_THREADS];
    pthread_t thread[HOST_FILL_THREADS];
    int started[HOST_FILL_THREADS] = {0};
    for (int i = 0; i < n; i++) {
        part[i].p = p + each * (size_t)i;
        part[i].bytes = i == n - 1 ? bytes - each * (size_t)i : each;
        if (i < n - 1)
            started[i] = pthread_create(&thread[i], NULL, host_fill_main, &part[i]) == 0;
    }
    for (int i = 0; i < n; i++)
        if (!started[i])
            host_fill_main(&part[i]);
    for (int i = 0; i < n - 1; i++)
        if (started[i])
            pthread_join(thread[i], NULL);
}

/* Shared host memory, made and pinned: a sealed memfd mapped here and registered with CUDA.
 * 0 with *p and *fd set, or the errno (or -1, CUDA's refusal in *cuda) with nothing kept.
 * Of W it reads only host_node, set before any reservation: a reservation's thread runs it
 * beside the harness's own work. */
static int host_make(size_t bytes, void **p, int *fd, cudaError_t *cuda)
{
    /* Its size sealed: a worker holding the descriptor cannot cut it short under the
     * harness's mapping (whose next access would die of SIGBUS). */
    *fd = memfd_create("grader-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (*fd < 0)
        return errno;
    if (ftruncate(*fd, (off_t)bytes) != 0 ||
        fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        const int e = errno;
        close(*fd);
        return e;
    }
    /* No MAP_POPULATE: making the pages on one thread (0.40-0.46 s a GiB on an H100's host)
     * is slower than cudaHostRegister making them as it pins (0.32 s); host_fill makes them on
     * several threads, and the registering after it pins only (0.03-0.05 s a GiB). */
    *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (*p == MAP_FAILED) {
        const int e = errno;
        close(*fd);
        return e;
    }
    /* Its pages on the GPU's own node, whichever CPU touches them first (the fill's threads
     * run anywhere): the student's array and the reference's then cross the same path. */
    const int unplaced = host_memory_prefer_node(*p, bytes, W.host_node);
    if (unplaced != 0)
        fprintf(stderr, "harness: shared host memory not placed on NUMA node %d: %s\n",
                W.host_node, strerror(unplaced));
    host_fill((char *)*p, bytes);
    *cuda = cudaHostRegister(*p, bytes, cudaHostRegisterDefault);
    if (*cuda != cudaSuccess) {
        (void)cudaGetLastError();
        munmap(*p, bytes);
        close(*fd);
        return -1;
    }
    return 0;
}

/* Host memory made ahead of its use on a thread of its own (workers_host_reserve), taken by
 * the first workers_host_alloc of exactly its size. */
typedef struct host_reservation {
    size_t bytes;      /* 0: a free slot */
    pthread_t thread;  /* making it */
    void *p;           /* the thread's result: the mapping and its memfd, or err */
    int fd, err;
    cudaError_t cuda;
    int made;          /* 1: made on the caller's thread (workers_host_reserve_now): no join */
} host_reservation;
#define MAX_RESERVED 4
static host_reservation reserved[MAX_RESERVED];

static void *host_reserve_main(void *arg)
{
    host_reservation *r = (host_reservation *)arg;
    r->err = host_make(r->bytes, &r->p, &r->fd, &r->cuda);
    return NULL;
}

/* A free slot given `bytes`, made on a thread of its own, or on this one now (`now`). */
static void host_reserve(size_t bytes, int now)
{
    for (int i = 0; i < MAX_RESERVED; i++)
        if (!reserved[i].bytes) {
            host_reservation *r = &reserved[i];
            r->bytes = bytes;
            r->p = NULL;
            r->fd = -1;
            r->made = now;
            if (now)
                host_reserve_main(r);
            else if (pthread_create(&r->thread, NULL, host_reserve_main, r) != 0)
                r->bytes = 0; /* made when it is asked for, as without a reservation */
            return;
        }
}

void workers_host_reserve(size_t bytes)
{
    if (W.isolated && bytes > 0 && workers_ahead())
        host_reserve(bytes, 0);
}

void workers_host_reserve_now(size_t bytes)
{
    if (W.isolated && bytes > 0)
        host_reserve(bytes, 1);
}

/* A reservation of exactly `bytes`, waited for: 1 with *p and *fd, else 0 (none, or its
 * making failed: the caller makes the memory itself and reports what goes wrong then). */
static int host_take_reserved(size_t bytes, void **p, int *fd)
{
    for (int i = 0; i < MAX_RESERVED; i++)
        if (reserved[i].bytes == bytes) {
            host_reservation *r = &reserved[i];
            if (!r->made)
                pthread_join(r->thread, NULL);
            r->made = 0;
            r->bytes = 0;
            if (r->err != 0)
                return 0;
            *p = r->p;
            *fd = r->fd;
            return 1;
        }
    return 0;
}

void workers_host_reserved_end(void)
{
    for (int i = 0; i < MAX_RESERVED; i++)
        if (reserved[i].bytes) { /* never asked for (the check did not run): given back */
            const size_t bytes = reserved[i].bytes;
            void *p;
            int fd;
            if (host_take_reserved(bytes, &p, &fd)) {
                cudaHostUnregister(p);
                munmap(p, bytes);
                close(fd);
            }
        }
}

void *workers_host_alloc(size_t bytes)
{
    if (!W.isolated) {
        void *p = NULL;
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
        return p;
    }
    void *p = NULL;
    int fd = -1;
    if (!host_take_reserved(bytes, &p, &fd)) {
        cudaError_t cuda = cudaSuccess;
        const int e = host_make(bytes, &p, &fd, &cuda);
        if (e < 0)
            cuda_fail(cuda, "cudaHostRegister(shared host memory)", __FILE__, __LINE__);
        if (e != 0)
            fatal("cannot make %zu bytes of shared host memory: %s", bytes, strerror(e));
    }
    shared_buf *b = shared_new(p, bytes);
    b->host = 1;
    b->fd = fd;
    return p;
}

void workers_host_free(void *p)
{
    if (!W.isolated) {
        CUDA_CHECK(cudaFreeHost(p));
        return;
    }
    workers_unregister(p);
}
