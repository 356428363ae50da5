/* worker_regions_trusted.cu - TRUSTED SIDE: the device memory the harness shares with its
 * workers, in regions. A region is one allocation exported as a file descriptor (on a GPU a
 * CUDA virtual-memory allocation, cuMemCreate and cuMemExportToShareableHandle; under the CPU
 * emulator its memfd), which a worker maps once, the first time a call names a buffer in it,
 * and unmaps when the region is given back (worker_buffers_trusted.cu's shared_retire: one
 * message a worker for every buffer given back together). The buffers of a check are pieces
 * of regions (region.h), each at the allocation granularity as if it were an allocation of its
 * own, so that its alignment and the slack after it are what a buffer of its own gives:
 *
 *   - the correctness checks of a lab: one region for all of them, kept from check to check
 *     (a check's buffers given back at its end, its next check's taken from the same region);
 *     made again, larger, where a check's buffers outgrow it while it holds none;
 *   - a speed check: its first problem in a region sized by the lab's footprint of it (the
 *     pieces' rounding added), its later problems in one more, sized by the first's pieces;
 *     both given back with the check's problems.
 *
 * A piece of the correctness checks' regions is zeroed as it is given back: what a check left
 * is in no region the next check's process sees (a speed check's regions are given back whole
 * with its problems, never handed out again). The reference's process and the student's share nothing but these regions,
 * and a region holds only buffers handed to calls: a buffer never handed to one (a problem's
 * entry values, harness_device_private) is memory of the harness's own (cudaMalloc), no
 * worker's. Under the CPU emulator each buffer is an allocation of its own unless
 * GRADER_EMU_REGIONS=1 (the emulator's red zones lie at an allocation's ends, and stop a
 * kernel that reads or writes one byte past a buffer at the student's line; in a region that
 * byte is the next piece's: tests alone take that mode, to run the regions' code without a
 * GPU). Every count is GRADER_COSTS's (COST_DEV_MAKE, COST_DEV_FREE). See worker_trusted.h. */
#include "worker_state_trusted.h"
#include "region.h"
#include "../../common/buffer.h"
#include "../../common/check.h"
#include "../../common/util.h"

#if defined(CUDA_EMU)
#include <cuda_emu/share_fd.h>
#else
#include <cuda.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One virtual-memory allocation of `size` (a multiple of the granularity), exported as a file
 * descriptor and mapped here: *fd, *h and the address, or cudaErrorMemoryAllocation. */
static cudaError_t vmm_make(size_t size, void **p, int *fd, unsigned long long *vmm)
{
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
    CU_CHECK(cuMemExportToShareableHandle(fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    *p = (void *)ptr;
    *vmm = (unsigned long long)h;
    return cudaSuccess;
}
#endif

/* 1 when shared device memory comes in regions: a GPU, or the emulator with
 * GRADER_EMU_REGIONS=1 (tests). */
static int regions_on(const worker_pool *pool)
{
#if defined(CUDA_EMU)
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("GRADER_EMU_REGIONS");
        on = v && !strcmp(v, "1");
    }
    return pool->isolated && on;
#else
    return pool->isolated;
#endif
}

/* The alignment of every piece: the GPU's allocation granularity (what an allocation of its
 * own is rounded to), the emulator's page; a host piece's, the page. */
static size_t piece_align(int host)
{
#if defined(CUDA_EMU)
    (void)host;
    return 4096;
#else
    if (host)
        return 4096;
    static size_t gran;
    if (!gran) {
        CUmemAllocationProp prop = shareable_prop();
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    }
    return gran;
#endif
}

/* Device memory of `size` (on a GPU a multiple of piece_align) that workers can map,
 * registered as a shared buffer. */
static cudaError_t shared_make(worker_pool *pool, size_t size, shared_buf **made)
{
    const double at = wall_seconds();
    void *p = NULL;
    int fd = -1;
    unsigned long long vmm = 0;
#if defined(CUDA_EMU)
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: the next call must not see it */
        return e;
    }
    CUDA_CHECK(e);
    CUDA_CHECK(cuda_emu::export_fd(&fd, p));
#else
    const cudaError_t e = vmm_make(size, &p, &fd, &vmm);
    if (e != cudaSuccess)
        return e;
#endif
    shared_buf *b = shared_new(pool, p, size);
    b->fd = fd;
    b->vmm = vmm;
    *made = b;
    worker_cost_add(COST_DEV_MAKE, at);
    return cudaSuccess;
}

void device_release(shared_buf *b)
{
    CUDA_CHECK(cudaDeviceSynchronize());
#if defined(CUDA_EMU)
    close(b->fd); /* the emulator's descriptor: the memory goes with the last mapping */
    CUDA_CHECK(cudaFree(b->base));
#else
    CU_CHECK(cuMemUnmap((CUdeviceptr)b->base, b->bytes));
    CU_CHECK(cuMemAddressFree((CUdeviceptr)b->base, b->bytes));
    CU_CHECK(cuMemRelease((CUmemGenericAllocationHandle)b->vmm));
    close(b->fd);
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Arenas: the regions of the correctness checks, and of the speed check being made            */

#define ARENA_REGIONS 8
#define CHECKS_REGION_MIN ((size_t)128 << 20) /* the correctness checks' region, at least:
                                                   every lab's checks but lab 07's largest */
#define SPEED_SLACK_PIECES 16 /* a speed problem's first region: its footprint, plus this many
                                 pieces' rounding and guards (a problem has 8 buffers at most,
                                 labs/lab_io.h) */
typedef struct arena {
    int speed;     /* 1: a speed check's (each region given back when it holds nothing) */
    int host;      /* 1: shared host memory (lab 05's arrays: memfds, pinned), 0: device */
    int n;         /* regions */
    shared_buf *b[ARENA_REGIONS];
    region_map map[ARENA_REGIONS];
    size_t hint;   /* the next region's size, at least (0: none) */
    size_t peak;   /* the most its pieces held at once */
} arena;

static arena checks;           /* the correctness checks' device memory */
static arena host_checks = {0, 1}; /* and their host memory (lab 05's pinned arrays) */
static arena speed = {1, 0};   /* the speed check's problems', from speed_begin on */
static int speed_making;   /* 1 between workers_device_speed_begin and _end */
static int private_on;     /* harness_device_private */

static size_t arena_used(const arena *a)
{
    size_t used = 0;
    for (int i = 0; i < a->n; i++)
        used += a->map[i].used;
    return used;
}

/* Region i of a given back (every worker unmapping it: at the free batch's end, in one). */
static void arena_drop(worker_pool *pool, arena *a, int i)
{
    shared_retire(pool, a->b[i]);
    a->n--;
    a->b[i] = a->b[a->n];
    a->map[i] = a->map[a->n];
}

/* A new region in a, at least `need` bytes: cudaSuccess, or cudaErrorMemoryAllocation. */
static cudaError_t arena_grow(worker_pool *pool, arena *a, size_t need)
{
    const size_t align = piece_align(a->host);
    size_t want = need > a->hint ? need : a->hint;
    if (!a->speed) { /* room for a check's buffers: the most they held at once, twice */
        if (a->n > 0 && arena_used(a) == 0) { /* none in use: one region in their place */
            while (a->n > 0)
                arena_drop(pool, a, a->n - 1);
        }
        want = want > 2 * need ? want : 2 * need;
        want = want > 2 * a->peak ? want : 2 * a->peak;
        want = want > CHECKS_REGION_MIN ? want : CHECKS_REGION_MIN;
    }
    if (a->n == ARENA_REGIONS)
        return cudaErrorMemoryAllocation; /* (the caller makes an allocation of its own) */
    want = region_round(want, align);
    shared_buf *b = NULL;
    cudaError_t e = a->host ? host_region_make(pool, want, &b) : shared_make(pool, want, &b);
    if (e == cudaErrorMemoryAllocation && want > region_round(need, align)) { /* short: */
        want = region_round(need, align); /* what this buffer needs */
        e = a->host ? host_region_make(pool, want, &b) : shared_make(pool, want, &b);
    }
    if (e != cudaSuccess)
        return e;
    if (!a->host) { /* what no piece holds reads as zeros, in every process (a memfd's do) */
        CUDA_CHECK(cudaMemset(b->base, 0, want));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    a->b[a->n] = b;
    region_init(&a->map[a->n], want, align);
    a->n++;
    a->hint = 0;
    return cudaSuccess;
}

/* A piece of `bytes` from arena a, at *out: cudaSuccess or cudaErrorMemoryAllocation. */
static cudaError_t arena_take(worker_pool *pool, arena *a, size_t bytes, void **out)
{
    size_t at = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < a->n; i++)
            if (region_take(&a->map[i], bytes, &at)) {
                *out = a->b[i]->base + at;
                const size_t used = arena_used(a);
                a->peak = used > a->peak ? used : a->peak;
                return cudaSuccess;
            }
        if (pass == 0) {
            const cudaError_t e = arena_grow(pool, a, region_round(bytes, piece_align(a->host)));
            if (e != cudaSuccess)
                return e;
        }
    }
    fatal("a new region of %zu bytes holds no piece of %zu", a->map[a->n - 1].bytes, bytes);
}

/* 1 when p is a piece of arena a, given back now: zeroed (the correctness checks', whose
 * regions the next check reuses), or its region given back once it holds nothing (a speed
 * check's). */
static int arena_give(worker_pool *pool, arena *a, void *p)
{
    for (int i = 0; i < a->n; i++) {
        char *base = a->b[i]->base;
        if ((char *)p < base || (char *)p >= base + a->map[i].bytes)
            continue;
        size_t bytes = 0;
        if (!region_give(&a->map[i], (size_t)((char *)p - base), &bytes))
            fatal("shared memory %p is no piece of its region", p);
        if (a->speed) {
            if (a->map[i].n == 0)
                arena_drop(pool, a, i);
            return 1;
        }
        CUDA_CHECK(cudaDeviceSynchronize()); /* (nothing of the harness's runs on it any more) */
        if (a->host) {
            memset(p, 0, bytes);
        } else {
            CUDA_CHECK(cudaMemset(p, 0, bytes));
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The harness's device memory (dbuf's allocator)                                              */

void workers_device_private(int on) { private_on = on; }

void pool_device_speed_begin(worker_pool *pool, size_t first_bytes)
{
    (void)pool;
    speed_making = 1;
    const size_t align = piece_align(0);
    speed.hint = first_bytes ? region_round(first_bytes, align) +
                                   SPEED_SLACK_PIECES * (align + 2 * DBUF_GUARD_BYTES)
                             : 0;
}

size_t pool_device_speed_slack(worker_pool *pool)
{
    (void)pool;
    size_t all = 0;
    for (int i = 0; i < speed.n; i++)
        all += speed.map[i].bytes;
    return all - arena_used(&speed);
}

void pool_device_speed_more(worker_pool *pool, int problems)
{
    if (!speed_making || speed.n == 0 || problems < 1)
        return;
    /* the first problem's pieces, as many times over, in one region made now */
    const size_t one = arena_used(&speed);
    if (arena_grow(pool, &speed, one * (size_t)problems) != cudaSuccess)
        cudaGetLastError(); /* (each later buffer then finds its own room, as it can) */
}

void workers_device_speed_end(void)
{
    speed_making = 0;
    speed.hint = 0;
}

void pool_regions_drain(worker_pool *pool)
{
    arena *const lab[] = {&checks, &host_checks};
    for (int k = 0; k < 2; k++)
        if (arena_used(lab[k]) == 0)
            while (lab[k]->n > 0)
                arena_drop(pool, lab[k], lab[k]->n - 1);
}

int pool_lab_memory_end(worker_pool *pool)
{
    arena *const all[] = {&checks, &host_checks, &speed};
    int held = 0;
    pool_free_batch(pool, 1);
    for (int k = 0; k < 3; k++) {
        held += arena_used(all[k]) > 0; /* (a piece still in use: the lab kept a buffer) */
        while (all[k]->n > 0)
            arena_drop(pool, all[k], all[k]->n - 1);
    }
    pool_free_batch(pool, 0);
    memset(&checks, 0, sizeof checks);
    memset(&host_checks, 0, sizeof host_checks);
    memset(&speed, 0, sizeof speed);
    host_checks.host = 1;
    speed.speed = 1;
    speed_making = 0;
    private_on = 0;
    for (int i = 0; i < MAX_SHARED; i++)
        held += pool->buf[i].base != NULL;
    return held;
}

int host_piece_take(worker_pool *pool, size_t bytes, void **p)
{
    if (speed_making) /* (a speed check's host arrays: made together, made ahead, alone) */
        return 0;
    const cudaError_t e = arena_take(pool, &host_checks, bytes, p);
    return e == cudaSuccess;
}

int host_piece_give(worker_pool *pool, void *p) { return arena_give(pool, &host_checks, p); }

/* 1 when the device has room for `bytes` beside what it holds: a correctness check's buffer
 * in a region the lab keeps stands for the allocation of its own it was, and is refused where
 * that would have been, so that a student's process that took the device's memory between two
 * calls is still found out by the next buffer a check needs (emit_reclaim: the driver then
 * judges whose the shortage was, tests/cheats/g11-hold-all-gpu-memory), whether or not the
 * region has room for it. (Under the CPU emulator each process's memory is counted apart.) */
static int room_beside(size_t bytes)
{
    size_t free_now = 0, total = 0;
    if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        cudaGetLastError(); /* (the device cannot say: the region decides) */
        return 1;
    }
    return free_now >= region_round(bytes, piece_align(0));
}

cudaError_t pool_try_device_alloc(worker_pool *pool, size_t bytes, void **out)
{
    *out = NULL;
    if (!private_on && regions_on(pool)) {
        arena *a = speed_making ? &speed : &checks;
        if (a == &checks && !room_beside(bytes))
            return cudaErrorMemoryAllocation;
        const cudaError_t e = arena_take(pool, a, bytes, out);
        if (e == cudaSuccess || a->n < ARENA_REGIONS)
            return e;
        /* (ARENA_REGIONS regions, none with room: an allocation of its own) */
    }
    if (!private_on && pool->isolated) {
        shared_buf *b = NULL;
#if defined(CUDA_EMU) /* (exactly its bytes: the emulator's red zones start where they end) */
        const cudaError_t e = shared_make(pool, bytes, &b);
#else
        const cudaError_t e = shared_make(pool, region_round(bytes, piece_align(0)), &b);
#endif
        if (e == cudaSuccess)
            *out = b->base;
        return e;
    }
    void *p = NULL; /* the harness's own (not shared: no worker maps it, no cost counted) */
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: the next call must not see it */
        return e;
    }
    CUDA_CHECK(e);
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

void pool_device_free(worker_pool *pool, void *p)
{
    if (arena_give(pool, &checks, p) || arena_give(pool, &speed, p))
        return;
    shared_buf *b = shared_find(pool, p);
    if (b)
        shared_retire(pool, b); /* every worker unmaps it first */
    else
        CUDA_CHECK(cudaFree(p));
}
