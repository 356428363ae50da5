/* timeline_trusted.c - TRUSTED PROCESS (the harness), `make profile` of a lab whose lesson is
 * a timeline (lab 05): which copies and kernels one call issued, and when each ran.
 *
 * The harness exports the CUDA runtime's copy and launch functions listed in
 * grader/harness/timeline.dynlist, so an implementation loaded into it (profiling runs calls in the
 * harness's own process) calls these first. Each passes straight through to the runtime;
 * only while recording does it bracket the operation with two CUDA events on the
 * operation's own stream. An event completes when its stream reaches it, so a bar starts when
 * its stream was ready: a copy queued behind another stream's copy on the same engine shows
 * its wait too, and the busy time of a lane (the union of its bars) is still exact.
 *
 * Nothing here runs while grading: workers are separate processes that never load this, and
 * where grading falls back to one process, recording is off and every call passes through. */
#include "timeline_trusted.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_MAX_OPS 16384

typedef struct tl_op {
    int lane;       /* TL_LANE_* */
    size_t bytes;   /* copies: bytes moved */
    cudaStream_t stream;
    cudaEvent_t a, b;
} tl_op;

static tl_op ops[TL_MAX_OPS];
static int n_ops, dropped;
static int recording;
static cudaEvent_t base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The runtime's own function of that name (the next definition after this executable). */
static void *real_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "timeline: the CUDA runtime has no %s\n", name);
        abort();
    }
    return f;
}
#define REAL(type, name)                                                                        \
    static type real_##name;                                                                    \
    if (!real_##name)                                                                           \
        real_##name = (type)real_fn(#name)

typedef cudaError_t (*copy_async_fn)(void *, const void *, size_t, enum cudaMemcpyKind,
                                     cudaStream_t);
typedef cudaError_t (*copy_fn)(void *, const void *, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*copy2d_async_fn)(void *, size_t, const void *, size_t, size_t, size_t,
                                       enum cudaMemcpyKind, cudaStream_t);
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);

static int lane_of_copy(const void *dst, const void *src, enum cudaMemcpyKind kind)
{
    if (kind == cudaMemcpyDefault) {
        struct cudaPointerAttributes ad, as;
        const int dd = cudaPointerGetAttributes(&ad, dst) == cudaSuccess &&
                       (ad.type == cudaMemoryTypeDevice || ad.type == cudaMemoryTypeManaged);
        const int sd = cudaPointerGetAttributes(&as, src) == cudaSuccess &&
                       (as.type == cudaMemoryTypeDevice || as.type == cudaMemoryTypeManaged);
        cudaGetLastError(); /* an unregistered host pointer is not an error of the call */
        kind = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                  : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    }
    switch (kind) {
    case cudaMemcpyHostToDevice: return TL_LANE_H2D;
    case cudaMemcpyDeviceToHost: return TL_LANE_D2H;
    default: return TL_LANE_OTHER;
    }
}

/* Before an operation on stream s: its slot with the first event recorded, or -1. */
static int op_begin(int lane, size_t bytes, cudaStream_t s)
{
    if (!__atomic_load_n(&recording, __ATOMIC_ACQUIRE))
        return -1;
    pthread_mutex_lock(&mu);
    int i = -1;
    if (n_ops < TL_MAX_OPS)
        i = n_ops++;
    else
        dropped++;
    pthread_mutex_unlock(&mu);
    if (i < 0)
        return -1;
    ops[i].lane = lane;
    ops[i].bytes = bytes;
    ops[i].stream = s;
    cudaEventRecord(ops[i].a, s);
    return i;
}

static void op_end(int i)
{
    if (i >= 0)
        cudaEventRecord(ops[i].b, ops[i].stream);
}

/* ---- the interposed runtime functions (exported by grader/harness/timeline.dynlist) ---------------- */

/* cudaMemcpyAsync, and its per-thread-default-stream twin. */
#define COPY_ASYNC(name)                                                                        \
    cudaError_t name(void *dst, const void *src, size_t n, enum cudaMemcpyKind k,              \
                     cudaStream_t s)                                                            \
    {                                                                                           \
        REAL(copy_async_fn, name);                                                              \
        const int i = op_begin(recording ? lane_of_copy(dst, src, k) : 0, n, s);                \
        const cudaError_t e = real_##name(dst, src, n, k, s);                                   \
        op_end(i);                                                                              \
        return e;                                                                               \
    }
COPY_ASYNC(cudaMemcpyAsync)
COPY_ASYNC(cudaMemcpyAsync_ptsz)

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind k)
{
    REAL(copy_fn, cudaMemcpy);
    const int i = op_begin(recording ? lane_of_copy(dst, src, k) : 0, n, 0);
    const cudaError_t e = real_cudaMemcpy(dst, src, n, k);
    op_end(i);
    return e;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind k, cudaStream_t s)
{
    REAL(copy2d_async_fn, cudaMemcpy2DAsync);
    const int i = op_begin(recording ? lane_of_copy(dst, src, k) : 0, width * height, s);
    const cudaError_t e = real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, k, s);
    op_end(i);
    return e;
}

/* The launch a <<<>>> compiles to (CUDA 12.8 and later), and the explicit API. */
#define LAUNCH(name)                                                                            \
    cudaError_t name(const void *f, dim3 g, dim3 b, void **args, size_t smem, cudaStream_t s)   \
    {                                                                                           \
        REAL(launch_fn, name);                                                                  \
        const int i = op_begin(TL_LANE_KERNEL, 0, s);                                           \
        const cudaError_t e = real_##name(f, g, b, args, smem, s);                              \
        op_end(i);                                                                              \
        return e;                                                                               \
    }
LAUNCH(__cudaLaunchKernel)
LAUNCH(__cudaLaunchKernel_ptsz)
LAUNCH(cudaLaunchKernel)
LAUNCH(cudaLaunchKernel_ptsz)

/* ---- recording ------------------------------------------------------------------------------ */

void timeline_begin(cudaStream_t s)
{
    static int created;
    if (!created) {
        for (int i = 0; i < TL_MAX_OPS; i++)
            if (cudaEventCreate(&ops[i].a) != cudaSuccess || cudaEventCreate(&ops[i].b) != cudaSuccess) {
                fprintf(stderr, "timeline: cannot create CUDA events\n");
                exit(1);
            }
        cudaEventCreate(&base);
        created = 1;
    }
    n_ops = dropped = 0;
    cudaEventRecord(base, s);
    __atomic_store_n(&recording, 1, __ATOMIC_RELEASE);
}

void timeline_end(void) { __atomic_store_n(&recording, 0, __ATOMIC_RELEASE); }

int timeline_write(FILE *f, int section)
{
    static const char *const lanes[] = {"h2d", "kernel", "d2h", "other"};
    cudaDeviceSynchronize();
    for (int i = 0; i < n_ops; i++) {
        float t0 = 0, t1 = 0;
        if (cudaEventElapsedTime(&t0, base, ops[i].a) != cudaSuccess ||
            cudaEventElapsedTime(&t1, base, ops[i].b) != cudaSuccess) {
            cudaGetLastError();
            continue; /* an operation that failed to record */
        }
        fprintf(f, "%d\t%s\t%p\t%.6f\t%.6f\t%zu\n", section, lanes[ops[i].lane],
                (void *)ops[i].stream, t0, t1, ops[i].bytes);
    }
    if (dropped)
        fprintf(stderr, "timeline: %d operations past the first %d were not recorded\n", dropped,
                TL_MAX_OPS);
    return n_ops;
}
