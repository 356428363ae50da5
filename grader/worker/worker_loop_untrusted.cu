/* worker_loop_untrusted.cu - UNTRUSTED SIDE: the worker's command loop (see proto.h).
 *
 * Linked into the same shared object as the implementation it serves (a student's file or
 * the reference), so it runs in a process whose every byte the implementation can change.
 * Nothing here decides anything: it maps the buffers the harness names, calls the lab's shim,
 * synchronizes and answers. The harness times each command from outside and checks every
 * output itself. */
#include "../wire/proto.h"
#include "shim.h"
#include "../../common/check.h"

#if defined(CUDA_EMU)
#include <cuda_emu/count.h>
#include <cuda_emu/schedule.h>
#include <cuda_emu/share_fd.h>
#else
#include <cuda.h>
#endif
#include <cuda_profiler_api.h>
#include <errno.h>
#include <iostream>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A buffer this worker has mapped. */
typedef struct mapped {
    uint32_t id;    /* the harness's id; 0 for a free slot */
    uint32_t kind;  /* proto_buf_kind */
    void *ptr;      /* where it lives in this process */
    uint64_t bytes; /* its size */
} mapped;

#define MAX_MAPPED 2048
static mapped maps[MAX_MAPPED];

/* Whether the call left this process's CUDA context or this loop's stream gone. A call that
 * resets the device (cudaDeviceReset) ends the context, and every stream and allocation made
 * in it; on a GPU the harness's mapped buffers outlive it (mapped by address, not owned by the
 * context), under the emulator they go too (tests/gpu/reset-probe.cu). `alive` is the loop's
 * own small allocation, made before any call: after a reset the runtime no longer calls it
 * device memory, a safe question on either platform, after which the old stream's handle is
 * not touched (on a GPU a stale handle's query may crash). Otherwise the stream is asked: one
 * the call destroyed answers cudaErrorInvalidResourceHandle (or cudaErrorContextIsDestroyed),
 * and on a GPU may crash the process in this check, which is then this call's failure all the
 * same. A call that destroyed the stream and made another may find the new one at the old
 * handle, where it answers cudaSuccess: the stream's id (cudaStreamGetId, CUDA 12 and the
 * emulator; unique for the process's life, never a destroyed stream's) tells them apart, and
 * one that differs from the id taken when the loop made its stream is a stream gone. (With an
 * older toolkit, the query alone.) Asked once the device is idle, when a stream that is still there answers cudaSuccess,
 * or a sticky error of the context (a fault, which says nothing of the stream and is left as
 * the call's). The worker answers such a call with cudaErrorContextIsDestroyed, whatever else it
 * returned, so that its check fails with the cause named (grader/decide/verdict.c) and the
 * harness ends this process, whose next call could only fail for it (a fresh worker serves the
 * next check). */
#if defined(CUDA_EMU) || CUDART_VERSION >= 12000
#define STREAM_ID(s, id) cudaStreamGetId((s), (id))
#else
#define STREAM_ID(s, id) ((void)(s), *(id) = 0, cudaSuccess)
#endif

static int context_or_stream_gone(const void *alive, cudaStream_t s, unsigned long long id)
{
    cudaPointerAttributes a;
    if (alive) {
        if (cudaPointerGetAttributes(&a, alive) != cudaSuccess)
            cudaGetLastError(); /* a sticky error (left to the stream's query) or an old runtime */
        else if (a.type != cudaMemoryTypeDevice)
            return 1;
    }
    const cudaError_t q = cudaStreamQuery(s);
    if (q != cudaErrorContextIsDestroyed && q != cudaErrorInvalidResourceHandle) {
        unsigned long long now = 0;
        if (STREAM_ID(s, &now) != cudaSuccess) {
            cudaGetLastError(); /* (the id's question, like the query, is no call's error) */
            return 0;
        }
        return id != 0 && now != id; /* (no id taken at the start: the query alone) */
    }
    cudaGetLastError(); /* the query's own error is no call's */
    return 1;
}

__global__ void shim_null_kernel(void) {}

/* common/check.h's CUDA_CHECK and CUDA_CHECK_LAUNCH, for implementations that use them (the
 * skeletons and the references do): in a worker a failed call ends the process, which the
 * harness reports with the call's output. The worker's side of cuda_fail (check.h). */
extern "C" void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    cuda_report(err, call, file, line);
    _exit(CUDA_EXIT_STATUS);
}

/* Read exactly `len` bytes, collecting file descriptors sent alongside into fds[]. */
static int recv_full(int sock, void *buf, size_t len, int *fds, int max_fds, int *n_fds)
{
    size_t got = 0;
    *n_fds = 0;
    while (got < len) {
        struct iovec iov = {(char *)buf + got, len - got};
        char control[CMSG_SPACE(sizeof(int) * PROTO_MAX_BUFS)];
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            const int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int j = 0; j < k && *n_fds < max_fds; j++)
                memcpy(&fds[(*n_fds)++], CMSG_DATA(c) + j * sizeof(int), sizeof(int));
        }
        got += (size_t)r;
    }
    return 0;
}

/* Whatever the code printed, into the output pipe before the harness hears that the call
 * is over: the harness moves what the pipe holds into the check's log when the check ends,
 * and the worker may be killed before it prints again. The worker's stdio is unbuffered
 * (worker_untrusted.c); this catches buffering the code set up itself (setvbuf, C++ streams
 * cut off from stdio). Device printf is in already: the call ended with a synchronisation. */
static void flush_output(void)
{
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
    fflush(NULL);
}

/* This command's buffers mapped and the seconds that took (proto_reply's account). */
static int32_t command_mapped;
static double command_map_s;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void reply(int sock, cudaError_t err, const char *problem)
{
    flush_output();
    proto_reply r;
    memset(&r, 0, sizeof r);
    r.magic = PROTO_MAGIC;
    r.mapped = command_mapped;
    r.map_s = command_map_s;
    command_mapped = 0;
    command_map_s = 0;
    r.cuda_error = (int32_t)err;
    if (err != cudaSuccess)
        snprintf(r.error_name, sizeof r.error_name, "%s", cudaGetErrorName(err));
    snprintf(r.problem, sizeof r.problem, "%s", problem ? problem : "");
    if (proto_write_all(sock, &r, sizeof r) != 0)
        exit(1);
}

/* Buffer `id`'s slot, or NULL; with `insert`, a free slot for it. Probes from the id's home
 * slot (the lookup runs for every argument of every call). */
static mapped *slot_of(uint32_t id, int insert)
{
    for (uint32_t k = 0; k < MAX_MAPPED; k++) {
        mapped *m = &maps[(id + k) % MAX_MAPPED];
        if (m->id == id)
            return m;
        if (m->id == 0 && insert)
            return m;
    }
    return NULL;
}

static mapped *find_mapped(uint32_t id) { return slot_of(id, 0); }

static cudaError_t map_new_buffer(const proto_buf *b, int *fds, int n_fds, int *next_fd,
                                  mapped **out);

/* Map buf (using the next passed descriptor: every buffer's first use brings one). */
static cudaError_t map_buffer(const proto_buf *b, int *fds, int n_fds, int *next_fd,
                              mapped **out)
{
    mapped *m = find_mapped(b->id);
    if (m) {
        *out = m;
        return cudaSuccess;
    }
    const double at = now_s();
    const cudaError_t e = map_new_buffer(b, fds, n_fds, next_fd, out);
    command_mapped++;
    command_map_s += now_s() - at;
    return e;
}

/* map_buffer's first use of buf: its slot, its memory mapped here. */
static cudaError_t map_new_buffer(const proto_buf *b, int *fds, int n_fds, int *next_fd,
                                  mapped **out)
{
    mapped *m = slot_of(b->id, 1);
    if (!m)
        return cudaErrorMemoryAllocation;
    void *ptr = NULL;
    if (b->kind == PROTO_BUF_DEVICE) {
        /* the allocation's file descriptor */
        if (*next_fd >= n_fds)
            return cudaErrorInvalidValue;
        const int fd = fds[*next_fd];
        fds[(*next_fd)++] = -1;
#if defined(CUDA_EMU)
        /* the emulator's memfd (unmapped with cudaIpcCloseMemHandle) */
        const cudaError_t e = cuda_emu::import_fd(&ptr, fd, b->bytes);
        close(fd);
        if (e != cudaSuccess)
            return e;
#else
        /* import, reserve addresses, map, allow access */
        int dev = 0;
        cudaGetDevice(&dev);
        CUmemGenericAllocationHandle h;
        CUdeviceptr p = 0;
        CUmemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = dev;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        const int ok =
            cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == CUDA_SUCCESS &&
            cuMemAddressReserve(&p, b->bytes, 0, 0, 0) == CUDA_SUCCESS &&
            cuMemMap(p, b->bytes, 0, h, 0) == CUDA_SUCCESS &&
            cuMemSetAccess(p, b->bytes, &access, 1) == CUDA_SUCCESS;
        close(fd);
        if (!ok)
            return cudaErrorMapBufferObjectFailed;
        cuMemRelease(h); /* the mapping keeps the memory */
        ptr = (void *)p;
#endif
    } else {
        if (*next_fd >= n_fds)
            return cudaErrorInvalidValue;
        const int fd = fds[*next_fd];
        fds[(*next_fd)++] = -1; /* consumed: closed here, not again by the loop */
        /* its pages made by the harness already: mapped in one pass here, where
         * cudaHostRegister would otherwise fault them in one page at a time */
        ptr = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
        close(fd);
        if (ptr == MAP_FAILED)
            return cudaErrorMemoryAllocation;
        const cudaError_t e = cudaHostRegister(ptr, b->bytes, cudaHostRegisterDefault);
        if (e != cudaSuccess) {
            munmap(ptr, b->bytes);
            return e;
        }
    }
    m->id = b->id;
    m->kind = b->kind;
    m->ptr = ptr;
    m->bytes = b->bytes;
    *out = m;
    return cudaSuccess;
}

static cudaError_t unmap_buffer(uint32_t id)
{
    mapped *m = find_mapped(id);
    if (!m || id == 0)
        return cudaSuccess;
    cudaError_t e = cudaSuccess;
    if (m->kind == PROTO_BUF_DEVICE) {
#if defined(CUDA_EMU)
        e = cudaIpcCloseMemHandle(m->ptr);
#else
        cudaDeviceSynchronize();
        if (cuMemUnmap((CUdeviceptr)m->ptr, m->bytes) != CUDA_SUCCESS ||
            cuMemAddressFree((CUdeviceptr)m->ptr, m->bytes) != CUDA_SUCCESS)
            e = cudaErrorUnknown;
#endif
    } else {
        e = cudaHostUnregister(m->ptr);
        munmap(m->ptr, m->bytes);
    }
    memset(m, 0, sizeof *m);
    return e;
}

/* The count's range: under the emulator its own, which the code's cudaProfilerStart and
 * cudaProfilerStop leave alone (cuda_emu/count.h); on a GPU the profiler's. A macro: the
 * emulator takes the call from shim_serve itself alone (its return address), never from a
 * function of this object that the code under test could call too. */
#if defined(CUDA_EMU)
#define COUNT_RANGE(on) (cuda_emu_count(on) == 0 ? cudaSuccess : cudaErrorNotPermitted)
#else
#define COUNT_RANGE(on) ((on) ? cudaProfilerStart() : cudaProfilerStop())
#endif

static cudaError_t run_calls(const proto_cmd *c, int *fds, int n_fds, cudaStream_t s,
                             const void *alive, unsigned long long stream_id,
                             char *problem, size_t len)
{
    mapped *bufs[PROTO_MAX_BUFS];
    int next_fd = 0;
    for (int b = 0; b < c->n_bufs; b++) {
        const cudaError_t e = map_buffer(&c->buf[b], fds, n_fds, &next_fd, &bufs[b]);
        if (e != cudaSuccess)
            return e;
    }
    for (int k = 0; k < c->n_calls; k++) {
        const proto_call *call = &c->call[k];
        shim_arg args[PROTO_MAX_ARGS];
        memset(args, 0, sizeof args);
        for (int a = 0; a < call->n_args; a++) {
            const proto_arg *pa = &call->arg[a];
            if (pa->type == PROTO_ARG_PTR)
                args[a].p = (char *)bufs[pa->buf]->ptr + pa->offset;
            else if (pa->type == PROTO_ARG_INT)
                args[a].i = pa->v.i;
            else
                args[a].f = pa->v.f;
        }
        lab_shim_call(call->entry, args, call->n_args, s, problem, len);
    }
    cudaError_t e = cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = sync;
    if (context_or_stream_gone(alive, s, stream_id))
        e = cudaErrorContextIsDestroyed;
    return e;
}

/* 1 while a buffer of the harness's is mapped here (PROTO_LOAD refuses then). */
static int any_mapped(void)
{
    for (int i = 0; i < MAX_MAPPED; i++)
        if (maps[i].id != 0)
            return 1;
    return 0;
}

/* PROTO_LOAD's question: is this object's work over, nothing of it left that the next could
 * meet? cudaSuccess, or why not: an error of the loop (its stream never made), a buffer still
 * mapped or a count open (the harness forgot one: it then ends this process), a sticky error of
 * the context, or its stream gone. */
static cudaError_t load_allowed(const proto_cmd *c, cudaError_t e, int count_fd, cudaStream_t s,
                                const void *alive, unsigned long long stream_id)
{
    if (e != cudaSuccess)
        return e;
    if (count_fd >= 0 || any_mapped() || !c->object[0] ||
        !memchr(c->object, 0, sizeof c->object))
        return cudaErrorNotPermitted;
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e == cudaSuccess && context_or_stream_gone(alive, s, stream_id))
        e = cudaErrorContextIsDestroyed;
    return e;
}

extern "C" int shim_serve(int sock, char *next, size_t len)
{
    cudaStream_t s;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    unsigned long long stream_id = 0; /* its id: another stream's after a destroy (same) */
    if (e == cudaSuccess && STREAM_ID(s, &stream_id) != cudaSuccess) {
        stream_id = 0;
        cudaGetLastError();
    }
    void *alive = NULL; /* the context's own: gone after a reset (context_or_stream_gone) */
    if (cudaMalloc(&alive, 256) != cudaSuccess) {
        alive = NULL; /* the stream's query alone, then */
        cudaGetLastError();
    }
    static proto_cmd c; /* 6 KB: not on a thread's stack */
    int count_fd = -1;  /* between PROTO_COUNT_BEGIN and PROTO_COUNT_END: where counts go */
    for (;;) {
        int fds[PROTO_MAX_BUFS], n_fds = 0;
        if (recv_full(sock, &c, sizeof c, fds, PROTO_MAX_BUFS, &n_fds) != 0)
            return 0; /* the harness went away */
        if (c.magic != PROTO_MAGIC || c.n_bufs < 0 || c.n_bufs > PROTO_MAX_BUFS ||
            c.n_calls < 0 || c.n_calls > PROTO_MAX_CALLS)
            return 1;
        char problem[256] = "";
        switch (c.op) {
        case PROTO_CALL:
#if defined(CUDA_EMU)
            /* The order the harness asked for (here, in shim_serve itself: the emulator takes
             * it from this function alone, never from the implementation's code). */
            cuda_emu_schedule(c.schedule);
#endif
            if (e == cudaSuccess)
                e = run_calls(&c, fds, n_fds, s, alive, stream_id, problem, sizeof problem);
            reply(sock, e, problem);
            break;
        case PROTO_NULL:
            if (e == cudaSuccess) {
                shim_null_kernel<<<1, 1, 0, s>>>();
                e = cudaGetLastError();
                if (e == cudaSuccess)
                    e = cudaStreamSynchronize(s);
            }
            reply(sock, e, "");
            break;
        case PROTO_FORGET: {
            cudaError_t f = cudaSuccess;
            for (int b = 0; b < c.n_bufs; b++) {
                const cudaError_t u = unmap_buffer(c.buf[b].id);
                if (f == cudaSuccess)
                    f = u;
            }
            reply(sock, e != cudaSuccess ? e : f, "");
            break;
        }
        case PROTO_COUNT_BEGIN: /* the emulator writes to the harness's descriptor, by number */
            if (e == cudaSuccess && n_fds == 1 && count_fd < 0) {
                char number[16];
                count_fd = fds[0];
                fds[0] = -1;
                snprintf(number, sizeof number, "%d", count_fd);
                setenv("CUDA_EMU_COUNT_FD", number, 1);
                e = COUNT_RANGE(1);
            }
            reply(sock, e, "");
            break;
        case PROTO_COUNT_END:
            if (e == cudaSuccess && count_fd >= 0)
                e = COUNT_RANGE(0);
            if (count_fd >= 0)
                close(count_fd);
            count_fd = -1;
            unsetenv("CUDA_EMU_COUNT_FD");
            reply(sock, e, "");
            break;
        case PROTO_LOAD: { /* (the harness sends it to the reference's worker alone) */
            const cudaError_t l = load_allowed(&c, e, count_fd, s, alive, stream_id);
            if (l != cudaSuccess || strlen(c.object) >= len) {
                reply(sock, l != cudaSuccess ? l : cudaErrorInvalidValue, "");
                break;
            }
            for (int i = 0; i < n_fds; i++)
                if (fds[i] >= 0)
                    close(fds[i]);
            cudaStreamDestroy(s); /* this object's own; the next makes its own */
            if (alive)
                cudaFree(alive);
            snprintf(next, len, "%s", c.object);
            flush_output();
            return PROTO_SERVE_LOAD; /* main loads it and answers */
        }
        case PROTO_QUIT:
            return 0;
        default:
            return 1;
        }
        for (int i = 0; i < n_fds; i++) /* descriptors of a command that did not use them */
            if (fds[i] >= 0)
                close(fds[i]);
    }
}
