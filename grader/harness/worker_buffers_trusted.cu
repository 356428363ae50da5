/* worker_buffers_trusted.cu - TRUSTED SIDE: memory the harness shares with its workers.
 * Device memory is made in worker_regions_trusted.cu (regions: CUDA virtual-memory allocations
 * exported as file descriptors; under the emulator, the memfd behind the allocation); host
 * memory here, sealed memfds pinned in every process that maps them. Each shared allocation has
 * an id never reused; a worker maps it the first time a call names it
 * (worker_protocol_trusted.cu sends the descriptor) and unmaps it before it is given back: every
 * allocation given back together, in one message a worker (shared_retire). See
 * worker_trusted.h and worker_state_trusted.h. */
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

shared_buf *shared_new(worker_pool *pool, void *base, size_t bytes)
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

void pool_unregister(worker_pool *pool, void *base)
{
    shared_buf *b = shared_find(pool, base);
    if (b)
        shared_retire(pool, b);
}

/* Unmap bufs[0..n) in every worker that mapped one: one message a worker (PROTO_MAX_BUFS
 * buffers a message), one stop and continue around it, whatever n. A worker that will not
 * unmap is killed, which unmaps them. */
static void forget_in_workers(worker_pool *pool, shared_buf *const *bufs, int n)
{
    static proto_cmd c;
    for (int impl = 0; impl < MAX_IMPLS; impl++) {
        worker *w = &pool->w[impl];
        for (int from = 0; from < n && w->pid > 0;) {
            memset(&c, 0, sizeof c);
            c.magic = PROTO_MAGIC;
            c.op = PROTO_FORGET;
            for (; from < n && c.n_bufs < PROTO_MAX_BUFS; from++)
                if (bufs[from]->mapped & (1u << impl))
                    c.buf[c.n_bufs++].id = bufs[from]->id;
            if (c.n_bufs == 0)
                continue;
            proto_reply r;
            worker_cost_add(COST_FORGET, wall_seconds()); /* (counted: its seconds are the free's) */
            if (worker_command(w, &c, NULL, 0, &r, wall_seconds() + 5.0) != EXCHANGE_OK)
                workers_kill(impl);
            else if (r.magic != PROTO_MAGIC || r.cuda_error != 0)
                w->doubt = 1; /* (an unmapping failed: not kept for another lab) */
        }
    }
}

/* bufs[0..n) unmapped in every worker, then their memory given back and their slots freed. */
static void retire_now(worker_pool *pool, shared_buf *const *bufs, int n)
{
    const double at = wall_seconds();
    jmp_buf *saved = pool->fail_jump;
    pool->fail_jump = NULL; /* (a worker killed here fails no check) */
    forget_in_workers(pool, bufs, n);
    pool->fail_jump = saved;
    unsigned char bufs_host[MAX_SHARED];
    for (int i = 0; i < n; i++) {
        shared_buf *b = bufs[i];
        bufs_host[i] = (unsigned char)b->host;
        if (b->host) {
            cudaHostUnregister(b->base);
            munmap(b->base, b->bytes);
            close(b->fd);
        } else {
            device_release(b);
        }
        memset(b, 0, sizeof *b);
        b->fd = -1;
    }
    const double s = (wall_seconds() - at) / n; /* (shared buffer for buffer) */
    for (int i = 0; i < n; i++)
        worker_cost_put(bufs_host[i] ? COST_HOST_FREE : COST_DEV_FREE, 1, s);
}

void shared_retire(worker_pool *pool, shared_buf *b)
{
    if (pool->retiring) { /* at the batch's end, with every other buffer given back */
        for (int i = 0; i < pool->n_retired; i++)
            if (pool->retired[i] == b)
                return;
        pool->retired[pool->n_retired++] = b;
        return;
    }
    retire_now(pool, &b, 1);
}

void pool_free_batch(worker_pool *pool, int begin)
{
    if (begin) {
        pool->retiring = 1;
        return;
    }
    pool->retiring = 0;
    if (pool->n_retired > 0)
        retire_now(pool, pool->retired, pool->n_retired);
    pool->n_retired = 0;
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
 * 1 GiB arrays, made (as measured then) by a harness started ahead of its lab while the lab
 * before waited for it: that wait went from 0.93-1.30 s to 0.63-0.79 s (8 students each, side
 * by side on one H200).
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

void pool_host_reserve_made(worker_pool *pool)
{
    if (reserved_state == RESERVED_ASKED && workers_ahead() &&
        pthread_create(&reserving, NULL, reserve_main, pool) == 0)
        reserved_state = RESERVED_MAKING;
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
    if (host_piece_take(pool, bytes, &p)) /* a correctness check's: the lab's host region */
        return p;
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

cudaError_t host_region_make(worker_pool *pool, size_t bytes, shared_buf **made)
{
    host_array a = {bytes, NULL, -1, 0, cudaSuccess};
    host_make(pool, &a, 1);
    if (a.err != 0)
        return cudaErrorMemoryAllocation; /* (the caller makes the buffer alone, and says why) */
    shared_buf *b = shared_new(pool, a.p, bytes);
    b->host = 1;
    b->fd = a.fd;
    *made = b;
    return cudaSuccess;
}

void pool_host_free(worker_pool *pool, void *p)
{
    if (!pool->isolated) {
        CUDA_CHECK(cudaFreeHost(p));
        return;
    }
    if (!host_piece_give(pool, p))
        pool_unregister(pool, p); /* (retire_now counts its seconds) */
}
