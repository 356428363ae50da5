/* shim_untrusted.cu - UNTRUSTED SIDE: lab 05's shim (see grader/worker/shim.h).
 *
 * One entry point: streams(h_out, h_in, d_out, d_in, n, process), called with arguments
 * "ppppzip": the four buffers, n, the kernel's k, and a small shared host buffer where the
 * shim leaves what it counted (stats[0] process() calls, stats[1] elements; the harness reads
 * the reference's chunk count from it for the ideal pipeline, nothing else).
 *
 * The shim holds what the lab checks about a call, because it runs where the call runs:
 *  - the grader's kernel and the launcher handed to the student (`process`), which counts
 *    the elements and refuses a range outside d_in / d_out (it would fault);
 *  - the streams and events the call creates and destroys: this shared object is linked with
 *    --wrap for the CUDA functions that make and destroy them (grader/labs/05-streams/lab.mk), so
 *    every call of them from the student's (or the reference's) code lands in the __wrap_
 *    functions below, which count and call the real one.
 * A rule broken in a call goes back as text in `problem`: the check fails with it. */
#include "../../worker/shim.h"
#include "streams.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams_kernel.cuh" /* the kernel f, shared with the harness */

/* ------------------------------------------------------------------------------------------ */
/* Counting streams and events (the linker sends every call here: see lab.mk)          */

typedef struct wrap_counts {
    long long streams_created;   /* successful cudaStreamCreate* calls */
    long long streams_destroyed; /* successful cudaStreamDestroy calls */
    long long events_created;    /* successful cudaEventCreate* calls */
    long long events_destroyed;  /* successful cudaEventDestroy calls */
} wrap_counts;

static wrap_counts g_wrap;
/* Calls nested inside a wrapped call (a runtime that implements one entry point with
 * another) are not counted twice. */
static thread_local int g_wrap_depth;

#define WRAP_COUNT(field, call)                                                             \
    do {                                                                                    \
        g_wrap_depth++;                                                                     \
        const cudaError_t e_ = (call);                                                      \
        g_wrap_depth--;                                                                     \
        if (e_ == cudaSuccess && g_wrap_depth == 0)                                         \
            __atomic_add_fetch(&g_wrap.field, 1, __ATOMIC_RELAXED);                         \
        return e_;                                                                          \
    } while (0)

extern "C" {
cudaError_t __real_cudaStreamCreate(cudaStream_t *s);
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags);
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio);
cudaError_t __real_cudaStreamDestroy(cudaStream_t s);
cudaError_t __real_cudaEventCreate(cudaEvent_t *e);
cudaError_t __real_cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags);
cudaError_t __real_cudaEventDestroy(cudaEvent_t e);

cudaError_t __wrap_cudaStreamCreate(cudaStream_t *s)
{
    WRAP_COUNT(streams_created, __real_cudaStreamCreate(s));
}
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    WRAP_COUNT(streams_created, __real_cudaStreamCreateWithFlags(s, flags));
}
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio)
{
    WRAP_COUNT(streams_created, __real_cudaStreamCreateWithPriority(s, flags, prio));
}
cudaError_t __wrap_cudaStreamDestroy(cudaStream_t s)
{
    WRAP_COUNT(streams_destroyed, __real_cudaStreamDestroy(s));
}
cudaError_t __wrap_cudaEventCreate(cudaEvent_t *e)
{
    WRAP_COUNT(events_created, __real_cudaEventCreate(e));
}
cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    WRAP_COUNT(events_created, __real_cudaEventCreateWithFlags(e, flags));
}
cudaError_t __wrap_cudaEventDestroy(cudaEvent_t e)
{
    WRAP_COUNT(events_destroyed, __real_cudaEventDestroy(e));
}
}

static wrap_counts wrap_snapshot(void)
{
    wrap_counts c;
    c.streams_created = __atomic_load_n(&g_wrap.streams_created, __ATOMIC_RELAXED);
    c.streams_destroyed = __atomic_load_n(&g_wrap.streams_destroyed, __ATOMIC_RELAXED);
    c.events_created = __atomic_load_n(&g_wrap.events_created, __ATOMIC_RELAXED);
    c.events_destroyed = __atomic_load_n(&g_wrap.events_destroyed, __ATOMIC_RELAXED);
    return c;
}

/* Once per process: a leak check that counts nothing would pass every leak. Create and
 * destroy one stream and one event through the public names and insist that all four
 * counters moved; if not, this object was linked without the wraps (or a runtime defines
 * these functions inline), and every call reports it: no grade is better than a wrong one. */
static int wrap_self_test(void)
{
    static int state; /* 0 not run, 1 wired, -1 not wired */
    if (state)
        return state > 0;
    const wrap_counts a = wrap_snapshot();
    cudaStream_t s;
    cudaEvent_t e;
    int ok = cudaStreamCreate(&s) == cudaSuccess && cudaStreamDestroy(s) == cudaSuccess &&
             cudaEventCreate(&e) == cudaSuccess && cudaEventDestroy(e) == cudaSuccess;
    const wrap_counts b = wrap_snapshot();
    ok = ok && b.streams_created != a.streams_created &&
         b.streams_destroyed != a.streams_destroyed && b.events_created != a.events_created &&
         b.events_destroyed != a.events_destroyed;
    state = ok ? 1 : -1;
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* The launcher handed to the implementation                                                   */

/* process() may be called from any host thread the implementation starts (a thread per
 * stream is a fair design): the counts are atomic, and the first refused range is claimed
 * by one caller before it is written. */
typedef struct active_call {
    float *d_in, *d_out; /* the call's device buffers, n floats each */
    size_t n;
    int k;               /* the kernel's work per element */
    size_t elements;     /* elements passed to process() so far (atomic) */
    long long chunks;    /* process() calls so far (atomic) */
    int refused;         /* 1 once a caller has claimed `problem` (atomic) */
    char problem[200];   /* the first range refused, "" if none */
} active_call;

static active_call *g_active; /* the call in progress (NULL outside one; atomic) */

static int inside(const void *ptr, size_t count, const float *base, size_t n)
{
    const uintptr_t lo = (uintptr_t)base, hi = lo + n * sizeof(float), a = (uintptr_t)ptr;
    return a >= lo && a <= hi && count <= (hi - a) / sizeof(float);
}

/* Checks where it is pointed, counts, launches. A range outside the call's device buffers
 * is reported, not launched (it would fault). */
static void counted_process(float *d_out, const float *d_in, size_t n, cudaStream_t stream)
{
    active_call *c = __atomic_load_n(&g_active, __ATOMIC_ACQUIRE);
    if (!c) { /* called after streams() returned: nothing to count it against */
        fprintf(stderr, "process() called outside a call of streams()\n");
        exit(1);
    }
    __atomic_add_fetch(&c->chunks, 1, __ATOMIC_RELAXED);
    if (!inside(d_in, n, c->d_in, c->n) || !inside(d_out, n, c->d_out, c->n)) {
        if (!__atomic_exchange_n(&c->refused, 1, __ATOMIC_ACQ_REL))
            snprintf(c->problem, sizeof c->problem,
                     "process(d_out=%p, d_in=%p, n=%zu) reaches outside the device buffers "
                     "d_out=%p and d_in=%p of %zu floats: not launched",
                     (void *)d_out, (const void *)d_in, n, (void *)c->d_out, (void *)c->d_in,
                     c->n);
        return;
    }
    __atomic_add_fetch(&c->elements, n, __ATOMIC_RELAXED);
    if (n == 0)
        return;
    const size_t blocks = (n + PROCESS_THREADS - 1) / PROCESS_THREADS;
    process_kernel<<<(unsigned)blocks, PROCESS_THREADS, 0, stream>>>(d_out, d_in, n,
                                                                          c->k);
}

/* ------------------------------------------------------------------------------------------ */
/* The entry point                                                                             */

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)s;
    if (!wrap_self_test()) {
        snprintf(problem, len, "the grader's stream/event leak check is not wired (the lab's "
                 "shim was linked without SHIM_LIBS_streams from grader/labs/05-streams/lab.mk)");
        return;
    }
    active_call c;
    memset(&c, 0, sizeof c);
    c.d_out = (float *)a[2].p;
    c.d_in = (float *)a[3].p;
    c.n = (size_t)a[4].i;
    c.k = (int)a[5].i;
    long long *stats = (long long *)a[6].p;
    __atomic_store_n(&g_active, &c, __ATOMIC_RELEASE);
    const wrap_counts before = wrap_snapshot();
    streams((float *)a[0].p, (const float *)a[1].p, c.d_out, c.d_in, c.n, counted_process);
    const wrap_counts after = wrap_snapshot();
    __atomic_store_n(&g_active, (active_call *)NULL, __ATOMIC_RELEASE);
    /* Read as they were written (threads the implementation started have been joined, or
     * their late calls are its own race). */
    const long long chunks = __atomic_load_n(&c.chunks, __ATOMIC_RELAXED);
    const size_t elements = __atomic_load_n(&c.elements, __ATOMIC_RELAXED);
    stats[0] = chunks;
    stats[1] = (long long)elements;
    const long long streams_leaked = (after.streams_created - before.streams_created) -
                                     (after.streams_destroyed - before.streams_destroyed);
    const long long events_leaked = (after.events_created - before.events_created) -
                                    (after.events_destroyed - before.events_destroyed);
    if (c.problem[0])
        snprintf(problem, len, "%s", c.problem);
    else if (elements != c.n)
        snprintf(problem, len,
                 "process() was given %zu elements in %lld call(s) in all, for n = %zu: every "
                 "element goes through the kernel exactly once", elements, chunks, c.n);
    else if (streams_leaked > 0 || events_leaked > 0)
        snprintf(problem, len,
                 "%lld stream(s) and %lld event(s) created and not destroyed in a call: "
                 "destroy what you create before returning (a stream may be destroyed with "
                 "work still queued)", streams_leaked > 0 ? streams_leaked : 0,
                 events_leaked > 0 ? events_leaked : 0);
}
