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

shared_buf *shared_find(worker_pool *pool, const void *p)
{
    const char *c = (const char *)p;
    for (int i = 0; i < MAX_SHARED; i++)
        if (pool->buf[i].base && c >= pool->buf[i].base &&
            c < pool->buf[i].base + pool->buf[i].bytes)
            return &pool->buf[i];
    return NULL;
}

static shared_buf *shared_new(worker_pool *pool, void *base, size_t bytes)
{
    for (int i = 0; i < MAX_SHARED; i++)
        if (!pool->buf[i].base) {
            shared_buf *b = &pool->buf[i];
            memset(b, 0, sizeof *b);
            b->base = (char *)base;
            b->bytes = bytes;
            b->id = pool->next_id++;
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

#if !defined(CUDA_EMU)
/* One virtual-memory allocation of `size` (a multiple of the granularity) that can be exported
 * as a file descriptor, mapped here and registered as a shared buffer. */
static cudaError_t vmm_make(worker_pool *pool, size_t size, shared_buf **made)
{
    const double at = wall_seconds();
    CUmemAllocationProp prop = shareable_prop();
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
    shared_buf *b = shared_new(pool, (void *)ptr, size);
    b->fd = fd;
    b->vmm = (unsigned long long)h;
    b->pieces = 1;
    *made = b;
    worker_cost_add(COST_DEV_MAKE, at);
    return cudaSuccess;
}

/* A speed check's problems, made one after another with the same buffers in the same order
 * (workers_device_group_begin): the first problem's buffers are allocations of their own, whose
 * sizes are noted; each later problem's come from one allocation (a slab) that holds them all,
 * each at a granularity boundary as if alone, so that its memory and every buffer's alignment
 * are what separate allocations give. A problem's buffers are handed to each worker together,
 * so a worker maps one slab where it mapped each buffer, and the driver's calls to make, map,
 * export, import and free them, which it serializes host-wide, fall by the number of buffers
 * a problem has (lab 01: four). A request that does not match the first problem's next size is
 * an allocation of its own, as without. */
#define GROUP_MAX 16
static struct {
    int state;               /* 0: none; 1: noting the first problem's sizes; 2: slabs */
    size_t size[GROUP_MAX];  /* the first problem's allocations, rounded to the granularity */
    int n;
    shared_buf *slab;        /* the current problem's slab, NULL until its first buffer */
    int next;                /* the next piece of it */
    int failed;              /* the slab could not be made: this problem's buffers alone */
    int paused;              /* buffers no worker is handed (workers_device_group_pause) */
} G;

void workers_device_group_pause(int on) { G.paused = on; }

void workers_device_group_begin(int first)
{
    if (first) {
        G.state = 1;
        G.n = 0;
    } else {
        G.state = G.n > 0 ? 2 : 0;
    }
    G.slab = NULL;
    G.next = 0;
    G.failed = 0;
}

void workers_device_group_end(void)
{
    G.state = 0;
    G.slab = NULL;
}

/* A piece of the current problem's slab for an allocation of `size`, or NULL. */
static void *group_piece(worker_pool *pool, size_t size)
{
    if (G.state != 2 || G.failed || G.next >= G.n || G.size[G.next] != size)
        return NULL;
    if (!G.slab) {
        size_t total = 0;
        for (int i = 0; i < G.n; i++)
            total += G.size[i];
        if (vmm_make(pool, total, &G.slab) != cudaSuccess) {
            G.failed = 1; /* each buffer alone, where the shortage is handled as ever */
            return NULL;
        }
        G.slab->pieces = 0;
    }
    size_t at = 0;
    for (int i = 0; i < G.next; i++)
        at += G.size[i];
    G.next++;
    G.slab->pieces++;
    return G.slab->base + at;
}

/* Small device buffers given back, kept for the next request of the same size (a correctness
 * check's problem makes and frees the same few sizes check after check): every worker unmapped
 * one before it was kept, as before any free, and it is zeroed before it is handed out again,
 * under an id of its own, so that nothing of its earlier use reaches its next. Kept: at most
 * POOL_MAX of at most POOL_PIECE bytes each, POOL_BYTES in all; all given back before a speed
 * check reads the free memory its problems are sized by, or when an allocation falls short. */
#define POOL_MAX 32
#define POOL_PIECE ((size_t)8 << 20)
#define POOL_BYTES ((size_t)32 << 20)
static struct {
    char *base;
    size_t bytes;
    int fd;
    unsigned long long vmm;
} kept[POOL_MAX];
static int pool_n;
static size_t pool_bytes;

static void vmm_release(char *base, size_t size, int fd, unsigned long long vmm)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CU_CHECK(cuMemUnmap((CUdeviceptr)base, size));
    CU_CHECK(cuMemAddressFree((CUdeviceptr)base, size));
    CU_CHECK(cuMemRelease((CUmemGenericAllocationHandle)vmm));
    close(fd);
}

void workers_device_pool_drain(void)
{
    while (pool_n > 0) {
        pool_n--;
        vmm_release(kept[pool_n].base, kept[pool_n].bytes, kept[pool_n].fd, kept[pool_n].vmm);
    }
    pool_bytes = 0;
}

/* A kept buffer of exactly `size`, zeroed and registered anew, or NULL. */
static shared_buf *pool_take(worker_pool *pool, size_t size)
{
    for (int i = 0; i < pool_n; i++)
        if (kept[i].bytes == size) {
            CUDA_CHECK(cudaMemset(kept[i].base, 0, size));
            CUDA_CHECK(cudaDeviceSynchronize());
            shared_buf *b = shared_new(pool, kept[i].base, size);
            b->fd = kept[i].fd;
            b->vmm = kept[i].vmm;
            b->pieces = 1;
            pool_bytes -= size;
            kept[i] = kept[--pool_n];
            return b;
        }
    return NULL;
}

/* Keep a buffer every worker has unmapped: 1, or 0 (no room: the caller gives it back). */
static int pool_keep(char *base, size_t size, int fd, unsigned long long vmm)
{
    if (pool_n == POOL_MAX || size > POOL_PIECE || pool_bytes + size > POOL_BYTES)
        return 0;
    kept[pool_n].base = base;
    kept[pool_n].bytes = size;
    kept[pool_n].fd = fd;
    kept[pool_n].vmm = vmm;
    pool_n++;
    pool_bytes += size;
    return 1;
}
#else
void workers_device_group_begin(int first) { (void)first; }
void workers_device_group_end(void) {}
void workers_device_group_pause(int on) { (void)on; }
void workers_device_pool_drain(void) {}
#endif

cudaError_t pool_try_device_alloc(worker_pool *pool, size_t bytes, void **out)
{
    *out = NULL;
#if !defined(CUDA_EMU)
    if (pool->isolated) { /* (vmm_make counts its own seconds) */
        CUmemAllocationProp prop = shareable_prop();
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        const size_t size = (bytes + gran - 1) / gran * gran;
        if (!G.paused && (*out = group_piece(pool, size)) != NULL)
            return cudaSuccess;
        shared_buf *b = G.state == 0 ? pool_take(pool, size) : NULL;
        if (b) {
            *out = b->base;
            return cudaSuccess;
        }
        cudaError_t e = vmm_make(pool, size, &b);
        if (e == cudaErrorMemoryAllocation && pool_n > 0) { /* what is kept, given back first */
            workers_device_pool_drain();
            e = vmm_make(pool, size, &b);
        }
        if (e != cudaSuccess)
            return e;
        if (G.state == 1 && !G.paused) { /* (a paused one is no part of the problem's slab) */
            if (G.n < GROUP_MAX)
                G.size[G.n++] = size;
            else
                G.state = G.n = 0; /* more buffers than a slab takes: none for this check */
        }
        *out = b->base;
        return cudaSuccess;
    }
#endif
    const double at = wall_seconds();
    void *p = NULL;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: the next call must not see it */
        return e;
    }
    CUDA_CHECK(e);
#if defined(CUDA_EMU)
    if (pool->isolated) { /* the emulator's allocation, shared as a memfd */
        int fd = -1;
        CUDA_CHECK(cuda_emu::export_fd(&fd, p));
        shared_new(pool, p, bytes)->fd = fd;
        worker_cost_add(COST_DEV_MAKE, at);
    }
#else
    (void)at; /* (not shared: no worker maps it, nothing the costs count) */
#endif
    *out = p;
    return cudaSuccess;
}

void *pool_device_alloc(worker_pool *pool, size_t bytes)
{
    void *p = NULL;
    if (pool_try_device_alloc(pool, bytes, &p) != cudaSuccess)
        cuda_fail(cudaErrorMemoryAllocation, "allocating device memory", __FILE__, __LINE__);
    return p;
}

int pool_reclaim_memory(worker_pool *pool, memory_reclaim *m)
{
    memset(m, 0, sizeof *m);
    size_t free_now = 0, total = 0;
    if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    m->total = total;
    m->free_before = m->free_after = free_now;
    if (pool->inprocess || pool->w[IMPL_STUDENT].pid <= 0)
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

void pool_device_free(worker_pool *pool, void *p)
{
    shared_buf *b = shared_find(pool, p);
    if (!b) {
        CUDA_CHECK(cudaFree(p));
        return;
    }
    if (b->pieces > 1) { /* a piece of a slab whose other pieces are in use */
        b->pieces--;
        return;
    }
    const double at = wall_seconds();
    void *base = b->base;
    const int fd = b->fd;
    const unsigned long long vmm = b->vmm;
    const size_t size = b->bytes;
    pool_unregister(pool, base); /* every worker unmaps it first */
#if !defined(CUDA_EMU)
    if (fd >= 0) {
        if (!pool_keep((char *)base, size, fd, vmm))
            vmm_release((char *)base, size, fd, vmm);
        worker_cost_add(COST_DEV_FREE, at);
        return;
    }
#endif
    (void)vmm, (void)size;
    if (fd >= 0)
        close(fd); /* the emulator's descriptor: the memory goes with the last mapping */
    CUDA_CHECK(cudaFree(base));
    worker_cost_add(COST_DEV_FREE, at);
}


void pool_unregister(worker_pool *pool, void *base)
{
    shared_buf *b = shared_find(pool, base);
    if (!b)
        return;
    /* Workers that mapped it unmap it first (CUDA requires it before the free). */
    for (int impl = 0; impl < MAX_IMPLS; impl++) {
        if (!(b->mapped & (1u << impl)) || pool->w[impl].pid <= 0)
            continue;
        static proto_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = PROTO_MAGIC;
        c.op = PROTO_FORGET;
        c.n_bufs = 1;
        c.buf[0].id = b->id;
        proto_reply r;
        jmp_buf *saved = pool->fail_jump;
        pool->fail_jump = NULL; /* a worker that will not unmap is killed, which unmaps it */
        if (pool->w[impl].pid > 0) {
            worker_signal(&pool->w[impl], SIGCONT);
            const ssize_t n = write(pool->w[impl].sock, &c, sizeof c);
            struct pollfd pf = {pool->w[impl].sock, POLLIN, 0};
            if (n != (ssize_t)sizeof c || poll(&pf, 1, 5000) != 1 ||
                read(pool->w[impl].sock, &r, sizeof r) != (ssize_t)sizeof r)
                workers_kill(impl);
            else
                worker_signal(&pool->w[impl], SIGSTOP);
        }
        pool->fail_jump = saved;
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
/* Fresh mappings' pages made (zero-filled, as a first touch makes them) on HOST_FILL_THREADS
 * threads (as many as the machine has CPUs, if fewer; none on one CPU, where cudaHostRegister
 * making them as it pins is faster), so that the registering finds them made and only pins
 * them. Mappings made together are made in turn: each thread takes its share of every one and
 * makes HOST_FILL_STEP of each before the next step of any, so that each array draws on the
 * same memory as the others, alike. With the host link shared, an H200 copied into an array
 * made whole before another 0.7-1.2% slower than into that other beside one GPU's copies, and
 * 1.1-2.6% beside three; into arrays made in turn, within 0.4% and 0.7% (tests/gpu/numa.sh).
 * Lab 05's speed check made the student's output array whole, then the reference's: its
 * self-check's median, one GPU copying beside, went from 0.9928 to 1.0023 made in turn (29
 * gradings each, tests/gpu/self-check-ab.sh; tests/gpu/results/h200x2-host-arrays.txt). A
 * kernel without MADV_POPULATE_WRITE, or too little memory, leaves the pages to
 * cudaHostRegister, which makes what is missing as before and reports a shortage as an error,
 * where a write to a page that cannot be made would end this process (SIGBUS). Lab 05's three
 * 1 GiB arrays, made by a harness started ahead of its lab while the lab before waits for it:
 * that wait went from 0.93-1.30 s to 0.63-0.79 s (8 students each, side by side on one H200).
 * Made on 4 threads and then registered, they took 0.71-0.78 s against 1.13-1.16 s registered
 * alone; 8 and 16 threads were no faster (tests/gpu/pin-probe.cu;
 * tests/gpu/results/h200-bench-grading.txt). */
#define HOST_FILL_THREADS 4
#define HOST_FILL_MIN ((size_t)64 << 20) /* smaller mappings: cudaHostRegister makes them */
#define HOST_FILL_STEP ((size_t)2 << 20)
#define MAX_RESERVED 4 /* host arrays made ahead at once, and made together */

typedef struct host_fill_part {
    int n;                      /* mappings */
    char *p[MAX_RESERVED];      /* this thread's share of each */
    size_t bytes[MAX_RESERVED];
} host_fill_part;

static void *host_fill_main(void *arg)
{
    const host_fill_part *part = (const host_fill_part *)arg;
    for (size_t at = 0, more = 1; more; at += HOST_FILL_STEP) {
        more = 0;
        for (int i = 0; i < part->n; i++)
            if (at < part->bytes[i]) {
                const size_t left = part->bytes[i] - at;
                (void)madvise(part->p[i] + at, left < HOST_FILL_STEP ? left : HOST_FILL_STEP,
                              MADV_POPULATE_WRITE);
                more = 1;
            }
    }
    return NULL;
}

/* Make the pages of the fresh mappings p[i] of bytes[i] (those of HOST_FILL_MIN or more),
 * together. This thread makes the last share, and any share whose thread could not start. */
static void host_fill(char *const *p, const size_t *bytes, int n)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2)
        return;
    const int threads = cpus < HOST_FILL_THREADS ? (int)cpus : HOST_FILL_THREADS;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    host_fill_part part[HOST_FILL_THREADS];
    memset(part, 0, sizeof part);
    for (int i = 0; i < n && i < MAX_RESERVED; i++) {
        if (bytes[i] < HOST_FILL_MIN)
            continue;
        const size_t each = bytes[i] / (size_t)threads / page * page;
        for (int t = 0; t < threads; t++) {
            host_fill_part *q = &part[t];
            q->p[q->n] = p[i] + each * (size_t)t;
            q->bytes[q->n] = t == threads - 1 ? bytes[i] - each * (size_t)t : each;
            q->n++;
        }
    }
    if (part[0].n == 0)
        return;
    pthread_t thread[HOST_FILL_THREADS];
    int started[HOST_FILL_THREADS] = {0};
    for (int t = 0; t < threads - 1; t++)
        started[t] = pthread_create(&thread[t], NULL, host_fill_main, &part[t]) == 0;
    for (int t = 0; t < threads; t++)
        if (!started[t])
            host_fill_main(&part[t]);
    for (int t = 0; t < threads - 1; t++)
        if (started[t])
            pthread_join(thread[t], NULL);
}

/* Shared host memory: a sealed memfd of `bytes`, mapped here. 0 with *p and *fd set, or the
 * errno with nothing kept. Of the pool it reads only host_node, set before any reservation: a
 * reservation's thread runs it beside the harness's own work. */
static int host_map(worker_pool *pool, size_t bytes, void **p, int *fd)
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
    const int unplaced = host_memory_prefer_node(*p, bytes, pool->host_node);
    if (unplaced != 0)
        fprintf(stderr, "harness: shared host memory not placed on NUMA node %d: %s\n",
                pool->host_node, strerror(unplaced));
    return 0;
}

/* A host array: asked for (bytes), then made (err 0: p and fd; an errno, or -1 with CUDA's
 * refusal in cuda: nothing kept). */
typedef struct host_array {
    size_t bytes; /* 0: a free slot */
    void *p;
    int fd, err;
    cudaError_t cuda;
} host_array;

/* Make n arrays together: each mapped, their pages made in turn (host_fill), each pinned.
 * Their seconds are counted (COST_HOST_MAKE), n makings. */
static void host_make(worker_pool *pool, host_array *a, int n)
{
    const double at = wall_seconds();
    char *p[MAX_RESERVED] = {NULL}; /* (read up to `mapped` alone: zeroed for gcc, which */
    size_t bytes[MAX_RESERVED] = {0}; /* cannot tell once host_make is inlined) */
    int mapped = 0;
    for (int i = 0; i < n; i++) {
        a[i].p = NULL;
        a[i].fd = -1;
        a[i].cuda = cudaSuccess;
        a[i].err = host_map(pool, a[i].bytes, &a[i].p, &a[i].fd);
        if (a[i].err == 0 && mapped < MAX_RESERVED) {
            p[mapped] = (char *)a[i].p;
            bytes[mapped++] = a[i].bytes;
        }
    }
    host_fill(p, bytes, mapped);
    for (int i = 0; i < n; i++) {
        if (a[i].err != 0)
            continue;
        a[i].cuda = cudaHostRegister(a[i].p, a[i].bytes, cudaHostRegisterDefault);
        if (a[i].cuda != cudaSuccess) {
            (void)cudaGetLastError();
            munmap(a[i].p, a[i].bytes);
            close(a[i].fd);
            a[i].err = -1;
        }
    }
    worker_cost_put(COST_HOST_MAKE, n, wall_seconds() - at);
}

/* The host memory a lab's speed checks will take, asked for ahead of them (lab 05's three
 * pinned arrays: workers_host_reserve) and made together, each taken by the first
 * workers_host_alloc of exactly its size. Made when workers_host_reserve_made says: now, on a
 * thread of its own, or at the first allocation that takes one of them. */
static host_array reserved[MAX_RESERVED];
static enum { RESERVED_NONE, RESERVED_ASKED, RESERVED_MAKING, RESERVED_MADE } reserved_state;
static pthread_t reserving;

static void *reserve_main(void *arg)
{
    worker_pool *pool = (worker_pool *)arg;
    int n = 0;
    while (n < MAX_RESERVED && reserved[n].bytes)
        n++;
    host_make(pool, reserved, n);
    return NULL;
}

void pool_host_reserve(worker_pool *pool, size_t bytes)
{
    if (!pool->isolated || bytes == 0 ||
        (reserved_state != RESERVED_NONE && reserved_state != RESERVED_ASKED))
        return;
    for (int i = 0; i < MAX_RESERVED; i++)
        if (!reserved[i].bytes) {
            reserved[i].bytes = bytes;
            reserved_state = RESERVED_ASKED;
            return;
        }
}

void pool_host_reserve_made(worker_pool *pool, int when)
{
    if (reserved_state != RESERVED_ASKED)
        return;
    if (when == HOST_RESERVE_NOW) {
        reserve_main(pool);
        reserved_state = RESERVED_MADE;
    } else if (when == HOST_RESERVE_AHEAD && workers_ahead() &&
               pthread_create(&reserving, NULL, reserve_main, pool) == 0) {
        reserved_state = RESERVED_MAKING;
    }
}

/* A reserved array of exactly `bytes`, made (all of them together, if not yet) or waited for:
 * 1 with *p and *fd, else 0 (none, or its making failed: the caller makes the memory itself
 * and reports what goes wrong then). */
static int host_take_reserved(worker_pool *pool, size_t bytes, void **p, int *fd)
{
    int i = 0;
    while (i < MAX_RESERVED && reserved[i].bytes != bytes)
        i++;
    if (i == MAX_RESERVED || reserved_state == RESERVED_NONE)
        return 0;
    if (reserved_state == RESERVED_MAKING)
        pthread_join(reserving, NULL);
    else if (reserved_state == RESERVED_ASKED)
        reserve_main(pool);
    reserved_state = RESERVED_MADE;
    host_array *r = &reserved[i];
    r->bytes = 0;
    if (r->err != 0)
        return 0;
    *p = r->p;
    *fd = r->fd;
    return 1;
}

void workers_host_reserved_end(void)
{
    if (reserved_state == RESERVED_MAKING)
        pthread_join(reserving, NULL);
    for (int i = 0; i < MAX_RESERVED; i++) {
        host_array *r = &reserved[i];
        /* made, never asked for (the check did not run): given back */
        if (reserved_state != RESERVED_ASKED && r->bytes && r->err == 0) {
            cudaHostUnregister(r->p);
            munmap(r->p, r->bytes);
            close(r->fd);
        }
        memset(r, 0, sizeof *r);
    }
    reserved_state = RESERVED_NONE;
}

void *pool_host_alloc(worker_pool *pool, size_t bytes)
{
    if (!pool->isolated) {
        void *p = NULL;
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
        return p;
    }
    void *p = NULL;
    int fd = -1;
    if (!host_take_reserved(pool, bytes, &p, &fd)) {
        host_array a = {bytes, NULL, -1, 0, cudaSuccess};
        host_make(pool, &a, 1);
        if (a.err < 0)
            cuda_fail(a.cuda, "cudaHostRegister(shared host memory)", __FILE__, __LINE__);
        if (a.err != 0)
            fatal("cannot make %zu bytes of shared host memory: %s", bytes, strerror(a.err));
        p = a.p;
        fd = a.fd;
    }
    shared_buf *b = shared_new(pool, p, bytes);
    b->host = 1;
    b->fd = fd;
    return p;
}

void pool_host_free(worker_pool *pool, void *p)
{
    if (!pool->isolated) {
        CUDA_CHECK(cudaFreeHost(p));
        return;
    }
    const double at = wall_seconds();
    pool_unregister(pool, p);
    worker_cost_add(COST_HOST_FREE, at);
}
