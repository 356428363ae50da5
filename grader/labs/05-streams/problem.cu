/* problem.cu - lab 05's problem for the harness: the inputs, the calls, the verification,
 * the sizes and the ideal pipeline.
 *
 * The student writes host code only: h_out[i] = f(h_in[i]) by copying a pinned host array to
 * the device, running the grader's kernel (passed in as a launcher, `process`) and copying
 * the result back. f is k fused multiply-adds, x <- fmaf(x, A, B), with k picked from the
 * device in hand so that the kernel and each copy direction take about the same time.
 *
 * Implementations run in their worker processes behind the lab's shim
 * (grader/labs/05-streams/shim_untrusted.cu). The shim holds the kernel and the launcher handed to
 * the student, counts the elements it is given, and counts the streams and events the call
 * creates and destroys (the shared object is linked with --wrap for those functions:
 * grader/labs/05-streams/lab.mk). What it finds wrong (a leak, an element count, a launch outside the
 * buffers) comes back as text and fails the check. The host arrays are shared with the
 * worker (harness_host_alloc), pinned in both processes.
 *
 * Verification is exact. The student only moves data and calls our kernel, and fmaf is
 * correctly rounded (IEEE 754) on the GPU and in the C library alike, so the expected output
 * is known bit for bit: computed on the CPU for every element. Every output element is
 * compared. Speed checks: device-only problems, a fresh input every round, the student's
 * output compared with the reference's bit for bit on the device. There the student and the
 * reference each write an output array of their own (out_of), never poisoned: what the
 * student's array holds before a call is its own answer to an earlier round's input, wrong
 * for this one, and the reference's answer lives in an array the student's process is never
 * given. Neither pays a gigabyte of poison over the host link before its call, and each finds
 * its array as its own last call left it, the same for both.
 *
 * Timing: host clock around the whole call (host_clock = 1), because the student's work runs
 * on streams the harness does not know. The ceiling is the ideal pipeline (ceiling_ms below),
 * assembled from measurements made in this process with this file's copy of the kernel. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "streams.h"
#include "../lab_io.h"
#include "../common/timing.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern "C" const lab_info lab_streams; /* the table, table.c */

/* ------------------------------------------------------------------------------------------ */
/* The kernel: f(x) = k times x <- fmaf(x, A, B). The same code as the shim's (the one the     */
/* implementations call); this copy times the ideal and the calibration.                      */

/* A = 1 - 2^-13 and B = 2^-14, both exact floats: the map contracts slowly towards its fixed
 * point B / (1 - A) = 0.5, so inputs in [-1, 1) stay there, and after k steps an input still
 * shows in its output (A^k is 0.29 at k = 10000): a wrong index cannot pass by luck. */
#include "streams_kernel.cuh" /* f, the same definition the shim hands the student */

#define MAX_K (1 << 16) /* the most work per element the calibration may pick */

static void launch_process(float *out, const float *in, size_t n, int k, cudaStream_t s)
{
    if (n == 0)
        return;
    const size_t blocks = (n + PROCESS_THREADS - 1) / PROCESS_THREADS;
    process_kernel<<<(unsigned)blocks, PROCESS_THREADS, 0, s>>>(out, in, n, k);
    CUDA_CHECK_LAUNCH();
}

/* The same function on the CPU, bit for bit. */
static float f_cpu(float x, int k)
{
    for (int j = 0; j < k; j++)
        x = fmaf(x, STREAMS_A, STREAMS_B);
    return x;
}

/* ------------------------------------------------------------------------------------------ */
/* The problem                                                                                 */

#define HOST_GUARD_BYTES 4096 /* around each pinned host buffer, like dbuf's device guards */
#define HOST_GUARD_BYTE 0x5A

typedef struct problem {
    lab_io io;                 /* first: the lab_io hooks take the problem as its lab_io */
    size_t n;                  /* floats pushed through the device */
    int k;                     /* FMAs per element in the kernel */
    int calls;                 /* calls of the implementation per run() */
    int engines;               /* the device's asyncEngineCount */
    unsigned char *h_in_base;  /* shared pinned allocation: guard | h_in | guard */
    unsigned char *h_out_base; /* shared pinned allocation: guard | h_out | guard */
    unsigned char *h_ref_base; /* the same for h_ref, in speed problems only */
    float *h_in;               /* the input, pinned */
    float *h_out;              /* the output, pinned: the student's (and in correctness
                                  problems everyone's, poisoned before every call) */
    float *h_ref;              /* speed problems: the output of the reference and of the
                                  harness's own copies (ceiling, calibration); NULL else */
    long long *stats;          /* shared: what the shim counted in the last call
                                  ([0] process() calls, [1] elements) */
    float *h_in_copy;          /* pageable copy of the input: the read-only check */
    float *h_expected;         /* the right output, bit for bit (NULL in device-only problems) */
    int last_impl;             /* the implementation that ran last: outputs() stages its array */
    int ref_chunks;            /* the reference's process() calls (the ideal), 0 if unknown */
    int terms_done;            /* the ideal's terms below are measured (measure_terms) */
    double t_in, t_k, t_out;   /* ms: H2D, the kernel, D2H of the whole array, each alone */
    double t_both;             /* ms: H2D and D2H of the whole array at once, one copy each */
    double pg_in, pg_out;      /* GB/s: pageable copies, for the printout */
    int staged;                /* 1: d_out holds the last call's output as it is (outputs()),
                                  until the next call, poison or ceiling writes it */
    cudaStream_t s2;           /* the second stream of the ceiling's copies, or 0 */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* The device buffers handed to the student (d_in, d_out), both poisoned before every call
 * (lab_io_prepare) and guarded, their guards checked by verify(); the host arrays are the
 * lab's own (pinned, shared with the workers: alloc_pinned). */
enum { D_IN, D_OUT };
static const lab_io_buf bufs[] = {LAB_IO_WORK_POISONED, LAB_IO_WORK_POISONED};
static float *d_in(problem *p) { return (float *)lab_io_dev(&p->io, D_IN); }
static float *d_out(problem *p) { return (float *)lab_io_dev(&p->io, D_OUT); }

static void poison(problem *p, cudaStream_t s);

/* The output array implementation `impl` writes: in a speed problem the reference's (and the
 * ceiling's) is h_ref, which the student's process never maps; every other call writes h_out. */
static float *out_of(const problem *p, int impl)
{
    return p->h_ref && (impl == IMPL_REFERENCE || impl == IMPL_CEILING) ? p->h_ref : p->h_out;
}

/* ------------------------------------------------------------------------------------------ */
/* Timing helpers for the calibration and the ideal (each op alone on the stream given)       */

enum op {
    OP_H2D,          /* h_in -> d_in, pinned */
    OP_KERNEL,       /* process on d_in -> d_out */
    OP_D2H,          /* d_out -> h_out, pinned */
    OP_BOTH,         /* H2D and D2H at the same time, on two streams (host clock) */
    OP_BOTH_CHUNKS,  /* the same in `chunks` pieces each, as a pipeline moves them (host clock) */
    OP_PAGEABLE_H2D, /* pageable host -> d_in (host clock) */
    OP_PAGEABLE_D2H, /* d_out -> pageable host (host clock) */
};

typedef struct op_ctx {
    problem *p;          /* buffers */
    size_t m;            /* elements moved or computed */
    int k;               /* kernel work per element */
    cudaStream_t second; /* the other stream of OP_BOTH */
    int chunks;          /* OP_BOTH_CHUNKS's pieces */
    float *pageable;     /* pageable source and destination of OP_PAGEABLE_* */
} op_ctx;

static void run_op(void *vctx, int op, cudaStream_t s)
{
    op_ctx *c = (op_ctx *)vctx;
    problem *p = c->p;
    const size_t bytes = c->m * sizeof(float);
    switch (op) {
    case OP_H2D:
        CUDA_CHECK(cudaMemcpyAsync(d_in(p), p->h_in, bytes, cudaMemcpyHostToDevice, s));
        break;
    case OP_KERNEL:
        launch_process(d_out(p), d_in(p), c->m, c->k, s);
        break;
    case OP_D2H:
        CUDA_CHECK(cudaMemcpyAsync(out_of(p, IMPL_CEILING), d_out(p), bytes,
                                   cudaMemcpyDeviceToHost, s));
        break;
    case OP_BOTH:
        CUDA_CHECK(cudaMemcpyAsync(d_in(p), p->h_in, bytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(out_of(p, IMPL_CEILING), d_out(p), bytes,
                                   cudaMemcpyDeviceToHost, c->second));
        break;
    case OP_BOTH_CHUNKS: {
        const size_t piece = (c->m + (size_t)c->chunks - 1) / (size_t)c->chunks;
        for (size_t off = 0; off < c->m; off += piece) {
            const size_t len = (c->m - off < piece ? c->m - off : piece) * sizeof(float);
            CUDA_CHECK(cudaMemcpyAsync(d_in(p) + off, p->h_in + off, len,
                                       cudaMemcpyHostToDevice, s));
            CUDA_CHECK(cudaMemcpyAsync(out_of(p, IMPL_CEILING) + off,
                                       d_out(p) + off, len,
                                       cudaMemcpyDeviceToHost, c->second));
        }
        break;
    }
    case OP_PAGEABLE_H2D:
        CUDA_CHECK(cudaMemcpyAsync(d_in(p), c->pageable, bytes, cudaMemcpyHostToDevice, s));
        break;
    case OP_PAGEABLE_D2H:
        CUDA_CHECK(cudaMemcpyAsync(c->pageable, d_out(p), bytes, cudaMemcpyDeviceToHost, s));
        break;
    }
}

/* Median of `reps` timings of op (event clock, or host clock for ops that leave the stream). */
static double median_op_ms(op_ctx *c, int op, int reps, cudaStream_t s, cudaEvent_t e0,
                           cudaEvent_t e1)
{
    double t[16];
    reps = reps > 16 ? 16 : reps;
    const int host = op == OP_BOTH || op == OP_BOTH_CHUNKS || op == OP_PAGEABLE_H2D ||
                     op == OP_PAGEABLE_D2H;
    for (int r = 0; r < reps; r++) {
        double ev, ho;
        time_one(NULL, run_op, c, op, NULL, s, e0, e1, &ev, &ho);
        t[r] = host ? ho : ev;
    }
    for (int i = 1; i < reps; i++) /* insertion sort: a handful of values */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[reps / 2];
}

/* The balance point: the k at which the kernel on the whole array takes as long as the copy
 * engines' busiest load. Timed on a probe of up to 64 MiB (the pipeline's chunks are that
 * size or smaller): the kernel at two values of k gives its fixed cost and its cost per FMA,
 * a straight line; the copies give the target. With two or more copy engines the two
 * directions run at once, so the target is the slower direction; with one engine they take
 * turns, so it is their sum. */
static int calibrate_k_once(problem *p)
{
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    const size_t probe = (size_t)16 << 20;
    op_ctx c = {p, p->n < probe ? p->n : probe, 64, NULL, 1, NULL};
    median_op_ms(&c, OP_KERNEL, 1, s, e0, e1); /* warm-up: module load, clocks */
    median_op_ms(&c, OP_H2D, 1, s, e0, e1);
    const double h2d = median_op_ms(&c, OP_H2D, 5, s, e0, e1);
    const double d2h = median_op_ms(&c, OP_D2H, 5, s, e0, e1);
    const int k1 = 64, k2 = 1088;
    c.k = k1;
    const double t1 = median_op_ms(&c, OP_KERNEL, 5, s, e0, e1);
    c.k = k2;
    const double t2 = median_op_ms(&c, OP_KERNEL, 5, s, e0, e1);
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    CUDA_CHECK(cudaStreamDestroy(s));
    const double per_k = (t2 - t1) / (k2 - k1);
    const double fixed = t1 - k1 * per_k;
    const double target = p->engines >= 2 ? (h2d > d2h ? h2d : d2h) : h2d + d2h;
    double k = per_k > 0 ? (target - fixed) / per_k : MAX_K;
    if (!(k >= 16))
        k = 16;
    if (k > MAX_K)
        k = MAX_K;
    return (int)lround(k);
}

/* Once per size and process: every problem of a speed check gets the same k. */
static int calibrate_k(problem *p)
{
    static size_t done_n;
    static int done_k;
    if (done_n != p->n) {
        done_k = calibrate_k_once(p);
        done_n = p->n;
    }
    return done_k;
}

/* ------------------------------------------------------------------------------------------ */
/* Hooks                                                                                       */

/* Pinned host memory shared with the workers, with guard zones around it. */
static void *alloc_pinned(size_t bytes, unsigned char **base)
{
    *base = (unsigned char *)harness_host_alloc(bytes + 2 * HOST_GUARD_BYTES);
    memset(*base, HOST_GUARD_BYTE, HOST_GUARD_BYTES);
    memset(*base + HOST_GUARD_BYTES + bytes, HOST_GUARD_BYTE, HOST_GUARD_BYTES);
    return *base + HOST_GUARD_BYTES;
}

/* 1 if both host guards around a pinned buffer are intact; else 0 and *at the first changed
 * byte relative to the buffer's start (negative before it). */
static int host_guards_intact(const unsigned char *base, size_t bytes, long long *at)
{
    for (size_t i = 0; i < HOST_GUARD_BYTES; i++)
        if (base[i] != HOST_GUARD_BYTE) {
            *at = (long long)i - HOST_GUARD_BYTES;
            return 0;
        }
    const unsigned char *after = base + HOST_GUARD_BYTES + bytes;
    for (size_t i = 0; i < HOST_GUARD_BYTES; i++)
        if (after[i] != HOST_GUARD_BYTE) {
            *at = (long long)(bytes + i);
            return 0;
        }
    return 1;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->n = (size_t)size[0];
    p->calls = size[2] > 0 ? (int)size[2] : 1;
    p->engines = d->async_engines;
    p->last_impl = -1;
    const size_t bytes = p->n * sizeof(float);
    lab_io_size(&p->io, &lab_streams, 0, size);
    const size_t count[] = {p->n, p->n};
    lab_io_create(&p->io, bufs, 2, count, seed); /* d_in, d_out; the host side is below */
    /* The call's host arrays (shared with the workers) are part of every problem. */
    p->h_in = (float *)alloc_pinned(bytes, &p->h_in_base);
    p->h_out = (float *)alloc_pinned(bytes, &p->h_out_base);
    if (harness_device_only_mode()) /* a speed check's problem: the reference's array of its own */
        p->h_ref = (float *)alloc_pinned(bytes, &p->h_ref_base);
    p->stats = (long long *)harness_host_alloc(4096);
    memset(p->stats, 0, 4096);
    p->k = size[1] > 0 ? (int)size[1] : d->emulated ? 8 : calibrate_k(p);
    /* (A speed check's arrays start as zeros, which no input maps to everywhere, and nothing
     * but the calls writes them after: a gigabyte written here by one CPU thread would buy
     * nothing.) */
    if (harness_device_only_mode()) /* a speed check's problem: refresh() makes the input */
        return p;
    memset(p->h_out, 0xFF, bytes);
    p->h_in_copy = (float *)xmalloc(bytes);
    p->h_expected = (float *)xmalloc(bytes);
    fill_uniform_f32(p->h_in, p->n, rng_derive(seed, 1), -1.f, 1.f);
    memcpy(p->h_in_copy, p->h_in, bytes);
    for (size_t i = 0; i < p->n; i++) /* the visible and hidden sizes: n k <= 5 x 10^7 */
        p->h_expected[i] = f_cpu(p->h_in[i], p->k);
    return p;
}

/* The speed check's three pinned arrays (h_in, h_out, h_ref), asked for when the harness
 * starts (see alloc_pinned): pinning 3 GiB takes most of a second or more (host_fill in
 * grader/harness/worker_buffers_trusted.cu), hidden behind the correctness checks. */
static void reserve(const long long size[LAB_MAX_DIMS], const device_info *d)
{
    (void)d;
    const size_t bytes = (size_t)size[0] * sizeof(float) + 2 * HOST_GUARD_BYTES;
    for (int i = 0; i < 3; i++)
        harness_host_reserve(bytes);
}

/* The host arrays, the ceiling's stream, then lab_io's buffers. */
static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    harness_host_free(p->h_in_base);
    harness_host_free(p->h_out_base);
    if (p->h_ref_base)
        harness_host_free(p->h_ref_base);
    harness_host_free(p->stats);
    free(p->h_in_copy);
    free(p->h_expected);
    if (p->s2)
        CUDA_CHECK(cudaStreamDestroy(p->s2));
    lab_io_hook_destroy(vp);
}

/* Poison both device buffers, and the output where every implementation writes the same one
 * (a correctness problem): an element the call never copied back, or copied back without
 * copying in or computing, cannot pass for a result left by an earlier call. (In a speed
 * problem each writes its own array and every round's input is new: see out_of.) On a GPU the
 * pinned output is a copy of the poisoned d_out (every byte DBUF_POISON_BYTE), made by a copy
 * engine at the host link's full rate: a gigabyte in about a fifth of the time of a kernel's
 * stores into mapped host memory, and several times faster than one CPU thread's memset,
 * which does it for a small array and under the CPU emulator. Either way it is done when
 * this returns. */
static void poison(problem *p, cudaStream_t s)
{
    p->staged = 0;
    const size_t bytes = p->n * sizeof(float);
    lab_io_prepare(&p->io, s); /* d_in and d_out */
    if (p->h_ref) {
        CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
#if !defined(CUDA_EMU)
    if (bytes >= ((size_t)1 << 20)) {
        CUDA_CHECK(cudaMemcpyAsync(p->h_out, d_out(p), bytes, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
#endif
    memset(p->h_out, DBUF_POISON_BYTE, bytes);
}

static void measure_terms(problem *p, cudaStream_t s);
static void run_ceiling(problem *p, cudaStream_t s);

static void prepare(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    p->staged = 0;
    if (impl == IMPL_CEILING) { /* nothing of its output is read: no poison */
        if (!p->terms_done)
            measure_terms(p, s);
        return;
    }
    poison(p, s);
}

/* One call of implementation impl through its shim, which counts and checks (see the top). */
static void call_impl(problem *p, int impl, cudaStream_t s)
{
    harness_call(impl, s, LAB_ENTRY_streams, LAB_WIRE_streams, out_of(p, impl), p->h_in, d_out(p),
                 d_in(p), p->n, p->k, p->stats);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    p->staged = 0;
    if (impl == IMPL_CEILING) {
        run_ceiling(p, s);
        return;
    }
    p->last_impl = impl;
    for (int c = 0; c < p->calls; c++) {
        if (c > 0) { /* repeated-call check: verify the call before, then start afresh */
            CUDA_CHECK(cudaDeviceSynchronize());
            if (p->h_expected) {
                compare_report cr;
                compare_exact_f32(p->h_out, p->h_expected, p->n, &cr);
                if (cr.n_bad) {
                    char what[160], text[200];
                    compare_describe(&cr, 0, what, sizeof what);
                    snprintf(text, sizeof text, "call %d of %d: %s", c, p->calls, what);
                    harness_note_problem(impl, text);
                }
            }
            poison(p, s);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        call_impl(p, impl, s);
    }
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    const size_t bytes = p->n * sizeof(float);
    compare_exact_f32(p->h_out, p->h_expected, p->n, &v->out);
    v->cols = 0;
    v->guard_ok = host_guards_intact(p->h_out_base, bytes, &v->guard_at);
    long long at;
    if (memcmp(p->h_in, p->h_in_copy, bytes)) {
        size_t i = 0;
        while (((const unsigned char *)p->h_in)[i] == ((const unsigned char *)p->h_in_copy)[i])
            i++;
        v->input_ok = 0;
        v->input_at = i;
    } else if (!host_guards_intact(p->h_in_base, bytes, &at)) {
        v->input_ok = 0;
        v->input_at = (size_t)(at < 0 ? 0 : at);
    }
    if (p->last_impl < 0)
        return;
    /* What the shim counted (leaks, elements) or a repeated call got wrong comes first. */
    if (harness_problem(p->last_impl)[0]) {
        snprintf(v->problem, sizeof v->problem, "%s", harness_problem(p->last_impl));
    } else if (!dbuf_guards_intact(lab_io_dbuf(&p->io, D_IN), &at)) {
        snprintf(v->problem, sizeof v->problem,
                 "a copy wrote outside d_in (byte %lld from its start; it holds n floats)", at);
    } else if (!dbuf_guards_intact(lab_io_dbuf(&p->io, D_OUT), &at)) {
        snprintf(v->problem, sizeof v->problem,
                 "something wrote outside d_out (byte %lld from its start; it holds n floats)",
                 at);
    }
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    if (p->calls > 1)
        snprintf(buf, len, "n=%zu k=%d x%d calls", p->n, p->k, p->calls);
    else
        snprintf(buf, len, "n=%zu k=%d", p->n, p->k);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    /* log-uniform from 1 to 4M, sometimes a chunk-like power of two plus or minus a little */
    const double e = rng_unit(r) * 22.0;
    long long n = (long long)exp2(e);
    if (rng_range(r, 0, 2) == 0)
        n = ((long long)1 << rng_range(r, 5, 22)) + rng_range(r, -3, 3);
    size[0] = n < 1 ? 1 : n;
    size[1] = rng_range(r, 1, 12);
    size[2] = rng_range(r, 1, 2);
}

/* The ideal pipeline, each term measured here and now on the whole array:
 *
 *     Tin  = H2D of all n floats, Tk = the kernel on all n, Tout = D2H of all n (each alone)
 *     Tio  = H2D and D2H of all n at the same time, on two streams, each in the C pieces the
 *            reference cuts (a pipeline's copies), timed beside the implementations round
 *            after round (IMPL_CEILING), since the two directions' rate together drifts
 *            over time: measured once apart from the implementations it missed them by up to
 *            15% either way on an H100 and an H200
 *     B    = max(Tio, Tk)                two or more copy engines (the directions overlap)
 *          = max(Tin + Tout, Tk)         one copy engine (the directions take turns)
 *          = Tin + Tk + Tout             no copy engine runs beside kernels (nothing overlaps)
 *     ideal = B + (Tin + Tk + Tout - B) / C
 *
 * with C the number of chunks the reference used (process() calls, counted). That is the
 * makespan of C equal chunks through three stages: the busiest engine runs without a gap
 * (B), plus one chunk's worth of the other stages to fill the pipe before it and drain it
 * after. In a full pipeline both copy directions run at once, and together they move less
 * than each alone: on an H200, 98.9 to 101.7 GB/s in all against 2 x 55.4, and the shortfall
 * changes from one process to the next while each direction alone does not. So B takes the
 * directions together as they run (Tio), not max(Tin, Tout): with each alone, the ideal
 * could not be reached and the reference's share of it moved with the shortfall (0.85 to
 * 0.89 of it in six runs on one H200). The fixed cost of each operation is left out. */
/* The ideal's terms that are measured alone, once per problem, before its first ceiling call
 * (untimed: prepare). The reference's chunk count comes from one call of it (its shim counts). */
static void measure_terms(problem *p, cudaStream_t s)
{
    if (p->ref_chunks == 0) {
        poison(p, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        p->stats[0] = 0;
        call_impl(p, IMPL_REFERENCE, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        p->ref_chunks = p->stats[0] > 0 && p->stats[0] < (1 << 30) ? (int)p->stats[0] : 1;
    }
    if (!p->s2)
        CUDA_CHECK(cudaStreamCreateWithFlags(&p->s2, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    const size_t m_pageable = p->n < ((size_t)64 << 20) ? p->n : ((size_t)64 << 20);
    float *pageable = (float *)xmalloc(m_pageable * sizeof(float));
    memset(pageable, 0, m_pageable * sizeof(float)); /* fault the pages in first */
    op_ctx c = {p, p->n, p->k, p->s2, p->ref_chunks, pageable};
    p->t_in = median_op_ms(&c, OP_H2D, 5, s, e0, e1);
    p->t_k = median_op_ms(&c, OP_KERNEL, 5, s, e0, e1);
    p->t_out = median_op_ms(&c, OP_D2H, 5, s, e0, e1);
    p->t_both = median_op_ms(&c, OP_BOTH, 5, s, e0, e1);
    c.m = m_pageable;
    const double gb_pg = m_pageable * sizeof(float) / 1e9;
    p->pg_in = gb_pg / median_op_ms(&c, OP_PAGEABLE_H2D, 3, s, e0, e1) * 1e3;
    p->pg_out = gb_pg / median_op_ms(&c, OP_PAGEABLE_D2H, 3, s, e0, e1) * 1e3;
    free(pageable);
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    CUDA_CHECK(cudaDeviceSynchronize());
    p->terms_done = 1;
}

/* The ceiling's timed call: both copy directions at once, in the reference's pieces (Tio).
 * The harness times it beside the implementations, round after round, as any variant. */
static void run_ceiling(problem *p, cudaStream_t s)
{
    op_ctx c = {p, p->n, p->k, p->s2, p->ref_chunks, NULL};
    run_op(&c, OP_BOTH_CHUNKS, s);
}

/* The ideal from Tio's median (run_ceiling) and the terms measured alone (measure_terms). */
static double ideal_of_run(void *vp, const device_info *d, double tio)
{
    problem *p = (problem *)vp;
    const int chunks = p->ref_chunks > 0 ? p->ref_chunks : 1;
    const double tin = p->t_in, tk = p->t_k, tout = p->t_out, sum = tin + tk + tout;
    double busiest;
    if (d->async_engines >= 2) /* (not Tin or Tout: measured once, alone, either may be off) */
        busiest = fmax(tio, tk);
    else if (d->async_engines == 1)
        busiest = fmax(tin + tout, tk);
    else
        busiest = sum;
    const double ideal = busiest + (sum - busiest) / chunks;
    const double gb = p->n * sizeof(float) / 1e9;
    printf("streams ideal: n=%zu k=%d copy_engines=%d reference_chunks=%d\n"
           "  H2D pinned %.3f ms (%.1f GB/s) | kernel %.3f ms (%.1f TFLOP/s) | D2H pinned "
           "%.3f ms (%.1f GB/s)\n"
           "  H2D+D2H at once %.3f ms (%.1f GB/s in all); in %d pieces each, timed beside the "
           "implementations, %.3f ms (%.1f GB/s)\n"
           "  pageable (64 MiB at most) H2D %.1f GB/s, D2H %.1f GB/s\n"
           "  sequential sum %.3f ms | ideal = B + (sum - B)/C = %.3f + %.3f/%d = %.3f ms\n",
           p->n, p->k, d->async_engines, chunks, tin, gb / tin * 1e3, tk,
           2.0 * p->k * p->n / (tk * 1e9), tout, gb / tout * 1e3, p->t_both, 2 * gb / p->t_both * 1e3,
           chunks, tio, 2 * gb / tio * 1e3, p->pg_in, p->pg_out, sum, busiest, sum - busiest, chunks,
           ideal);
    fflush(stdout);
    return ideal;
}

/* Speed checks: a new input, made on the device and copied into the shared host array. */
static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    dev_fill_f32(d_in(p), p->n, rng_derive(seed, 1), -1.f, 1.f, 0.f, s);
    CUDA_CHECK(cudaMemcpyAsync(p->h_in, d_in(p), p->n * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
}

/* The output lives in host memory (the array of the implementation that ran last, out_of):
 * staged into d_out (the next call poisons it anyway) so that the harness compares device
 * memory, bit for bit (the kernel is the grader's, and fmaf is correctly rounded: one right
 * answer per element). Staged once per call: the harness asks for the outputs up to three
 * times after one (guards, then to keep or compare them), and nothing writes that array
 * between (the worker is stopped). */
static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max;
    problem *p = (problem *)vp;
    if (!p->staged)
        CUDA_CHECK(cudaMemcpyAsync(d_out(p), out_of(p, p->last_impl), p->n * sizeof(float),
                                   cudaMemcpyHostToDevice, s));
    p->staged = 1;
    out[0] = (lab_output){d_out(p), p->n, DEV_U32, 0, 0, lab_io_dbuf(&p->io, D_OUT)};
    return 1;
}

/* h_in is read-only: shared pinned memory, which the device reads in place. A speed round's
 * first hash of it reads d_in instead, which refresh() copied it from (the same bytes, no
 * trip over the host link); the hash after the student's call reads h_in. */
static int inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    problem *p = (problem *)vp;
    in[0] = (lab_input){p->h_in, p->n * sizeof(float), d_in(p)};
    return 1;
}

const lab_info *const harness_lab = &lab_streams;
const lab_task harness_tasks[] = {
    {.name = "streams", .unit = "GB/s", .ceiling = "ideal pipeline", .host_clock = 1,
     .create = create, .destroy = destroy, .prepare = prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size,
     .ceiling_of_run = ideal_of_run, .refresh = refresh, .outputs = outputs, .inputs = inputs,
     .reserve = reserve},
};
const int harness_n_tasks = 1;
