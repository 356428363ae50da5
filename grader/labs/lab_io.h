/* lab_io.h - TRUSTED, the harness's side: the part of a lab's problem (its problem.cu) that
 * every lab does the same way, written once: its buffers (device buffers with guard zones, and
 * on a correctness check their host copies), the inputs drawn from the seed and uploaded, the
 * outputs poisoned (or restored to their entry values) and the scratch zeroed before each call,
 * a speed check's fresh inputs drawn on the device, the verification (every output against
 * the CPU's answer, every input unchanged, every scratch buffer's guards), what outputs() and
 * inputs() hand the harness, the copy that is a data-moving task's ceiling, and the freeing;
 * and, for a lab whose inputs come from a grid of few distinct values (labs 03 and 04), those
 * inputs drawn with their CPU answers computed once per distinct value (lab_io_draw_memo).
 * (A lab whose one task only moves a matrix, labs 02 and 06, is written once more on this
 * header: lab_move.h.)
 *
 * A lab declares its buffers as a table of lab_io_buf, in the order they are made (inputs
 * first, each with the stream of the seed it is drawn from and its range), and keeps what is
 * its own: the shape, the counts of each buffer, the CPU's answer, the call, the sizes, and
 * whatever its subject needs beside (lab 05's pinned host arrays, lab 07's CUB storage, lab
 * 09's cuBLAS handle and sampled check). Its problem struct begins with a lab_io, so that the
 * lab_io_hook_* functions below serve as the task's destroy, prepare, refresh, outputs, inputs
 * and work hooks as they are, or are called by the lab's own hook that adds to them:
 *
 *     typedef struct problem { lab_io io; int rows, cols; } problem;
 *     static const lab_io_buf bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};
 *     ... create: lab_io_size(&p->io, &lab_x, 0, size);
 *         if (lab_io_create(&p->io, bufs, 2, counts, seed)) { the CPU's answer into
 *         lab_io_expected_f(&p->io, 1) from lab_io_in(&p->io, 0); lab_io_upload(&p->io); }
 */
#ifndef LABS_LAB_IO_H
#define LABS_LAB_IO_H

#include "../harness/harness.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LAB_IO_MAX 8 /* buffers of one problem */

/* What a buffer is to a call. */
enum lab_io_role {
    LAB_IO_INPUT,     /* drawn from the seed, handed to the call, must come back unchanged */
    LAB_IO_OUTPUT,    /* handed to the call, poisoned (or restored) before it, verified after */
    LAB_IO_SCRATCH,   /* handed to the call, zeroed before it (the contract promises zeros);
                         only its guards are checked, and it is never compared */
    LAB_IO_WORKSPACE, /* handed to the call, poisoned before it; never compared here: the lab
                         checks what it needs of it (lab 05's device staging arrays) */
    LAB_IO_SOURCE     /* drawn as an input is, never handed to a call: the entry values an
                         output is restored from before each call */
};

/* One buffer of a problem, as the lab declares it: floats, or (u32) 32-bit unsigned words. */
typedef struct lab_io_buf {
    int role;      /* enum lab_io_role */
    int u32;       /* 1: unsigned words, drawn uniform over all 32 bits (an input the lab draws
                      itself on the host) and compared exactly (an output) */
    /* an input or a source: drawn uniform in [lo, hi) from rng_derive(seed, draw), on the host
     * for a correctness check (fill_uniform_f32; lab_drawn: the lab draws it itself) and on
     * the device for a speed check (dev_fill_f32, in multiples of `step` when step > 0; with
     * n_choice > 0, dev_fill_choice_f32 from the n_choice values at `choice`) */
    int draw;
    float lo, hi, step;
    int lab_drawn;
    /* an output: exact (compared bit for bit with a float answer) or within rel * scale + abs
     * of a double answer, scale |expected| or the lab's own (lab_io.scale); two right answers
     * are then twice that apart (outputs()), or (agree) the same bits, where the contract leaves
     * one right answer */
    int exact;
    double rel, abs;
    int agree;
    int restore;   /* an output read and written by the call: 1 + the index of the SOURCE its
                      entry values are restored from before each call (0: poisoned) */
    int lab_checked; /* an output the lab verifies itself (a sampled check): no CPU answer is
                      made for it here, and lab_io_verify passes it over */
    const float *choice; /* an input drawn on the device from these values (see draw) */
    int n_choice;
    const char *holds; /* scratch: what it holds, for the message when a call writes outside it
                          ("reduction_scratch_floats(n) floats") */
} lab_io_buf;

/* role, u32, draw, lo, hi, step, lab_drawn, exact, rel, abs, agree, restore, lab_checked,
 * choice, n_choice, holds */
#define LAB_IO_IN(draw, lo, hi) \
    {LAB_IO_INPUT, 0, (draw), (lo), (hi), 0.f, 0, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
/* an input the lab draws itself on the host (lab_drawn), drawn on the device in steps */
#define LAB_IO_IN_OWN(draw, lo, hi, step) \
    {LAB_IO_INPUT, 0, (draw), (lo), (hi), (step), 1, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
/* an input the lab draws itself on the host, drawn on the device from n values */
#define LAB_IO_IN_CHOICE(draw, values, n) \
    {LAB_IO_INPUT, 0, (draw), 0.f, 0.f, 0.f, 1, 0, 0.0, 0.0, 0, 0, 0, (values), (n), NULL}
#define LAB_IO_OUT_EXACT \
    {LAB_IO_OUTPUT, 0, 0, 0.f, 0.f, 0.f, 0, 1, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
#define LAB_IO_OUT_CLOSE(rel, abs) \
    {LAB_IO_OUTPUT, 0, 0, 0.f, 0.f, 0.f, 0, 0, (rel), (abs), 0, 0, 0, NULL, 0, NULL}
/* verified within the bound, but two implementations must give the same bits */
#define LAB_IO_OUT_CLOSE_AGREE(rel, abs) \
    {LAB_IO_OUTPUT, 0, 0, 0.f, 0.f, 0.f, 0, 0, (rel), (abs), 1, 0, 0, NULL, 0, NULL}
/* 32-bit unsigned words: an input the lab draws on the host (from stream draw on the device),
 * an output compared exactly */
#define LAB_IO_IN_U32(draw) \
    {LAB_IO_INPUT, 1, (draw), 0.f, 0.f, 0.f, 1, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
#define LAB_IO_OUT_U32 {LAB_IO_OUTPUT, 1, 0, 0.f, 0.f, 0.f, 0, 1, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
/* an output read and written by the call, restored from SOURCE buffer `from` before each call
 * and verified by the lab itself */
#define LAB_IO_OUT_RESTORED(from) \
    {LAB_IO_OUTPUT, 0, 0, 0.f, 0.f, 0.f, 0, 0, 0.0, 0.0, 0, 1 + (from), 1, NULL, 0, NULL}
/* scratch the call may use, zeroed before it; `holds` says how much it holds */
#define LAB_IO_SCRATCH_ZEROED(holds) \
    {LAB_IO_SCRATCH, 0, 0, 0.f, 0.f, 0.f, 0, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, (holds)}
#define LAB_IO_WORK_POISONED \
    {LAB_IO_WORKSPACE, 0, 0, 0.f, 0.f, 0.f, 0, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}
/* entry values the lab draws itself on the host, drawn on the device in steps */
#define LAB_IO_SOURCE_OWN(draw, lo, hi, step) \
    {LAB_IO_SOURCE, 0, (draw), (lo), (hi), (step), 1, 0, 0.0, 0.0, 0, 0, 0, NULL, 0, NULL}

typedef struct lab_io {
    const lab_info *lab;     /* the problem's lab, task and size (lab_io_size): its work */
    int task;
    long long size[LAB_MAX_DIMS];
    const lab_io_buf *spec;  /* the lab's table of its buffers */
    int n_bufs;
    size_t n[LAB_IO_MAX];    /* elements in each (4 bytes each) */
    dbuf buf[LAB_IO_MAX];    /* device buffers, guarded */
    void *host[LAB_IO_MAX];  /* an input's (or source's) host copy; an output's scratch for its
                                download; NULL for scratch and workspace */
    void *expected[LAB_IO_MAX]; /* an output's CPU answer: float or u32 (exact), or double;
                                   NULL where the lab checks it itself */
    const double *scale[LAB_IO_MAX]; /* an output's error scale per element, the lab's (lab
                                   07's: the sum of |inputs|); NULL: |expected| */
} lab_io;

/* Whether buffer b is drawn from the seed (an input, or the entry values of an output). */
static inline int lab_io_drawn(const lab_io_buf *b)
{
    return b->role == LAB_IO_INPUT || b->role == LAB_IO_SOURCE;
}

/* The problem's lab, task and size, for its work (lab_io_hook_work: the footprint's). */
static inline void lab_io_size(lab_io *io, const lab_info *lab, int task,
                               const long long size[LAB_MAX_DIMS])
{
    io->lab = lab;
    io->task = task;
    for (int d = 0; d < LAB_MAX_DIMS; d++)
        io->size[d] = size[d];
}

/* Device buffers for each of spec's n_bufs buffers, count[i] floats each (in spec's order);
 * on a correctness check (not harness_device_only_mode()) the host copies too, and every input not
 * lab_drawn drawn from seed. 1 when the host side was made (the caller then writes the CPU's
 * answer, and draws its own inputs, then calls lab_io_upload), 0 for a speed check's problem
 * (refresh() makes its inputs). */
static inline int lab_io_create(lab_io *io, const lab_io_buf *spec, int n_bufs,
                                const size_t count[], uint64_t seed)
{
    if (n_bufs < 1 || n_bufs > LAB_IO_MAX)
        fatal("lab_io: %d buffers (1 to %d)", n_bufs, LAB_IO_MAX);
    io->spec = spec;
    io->n_bufs = n_bufs;
    for (int i = 0; i < n_bufs; i++) {
        io->n[i] = count[i];
        harness_device_private(spec[i].role == LAB_IO_SOURCE); /* never handed to a call */
        dbuf_alloc(&io->buf[i], count[i] * sizeof(float));
        harness_device_private(0);
    }
    if (harness_device_only_mode())
        return 0;
    for (int i = 0; i < n_bufs; i++) {
        const lab_io_buf *b = &spec[i];
        if (b->role == LAB_IO_SCRATCH || b->role == LAB_IO_WORKSPACE)
            continue;
        io->host[i] = xmalloc(count[i] * sizeof(float));
        if (b->role == LAB_IO_OUTPUT && !b->lab_checked)
            io->expected[i] = xmalloc(count[i] * (b->exact ? sizeof(float) : sizeof(double)));
        else if (lab_io_drawn(b) && !b->lab_drawn)
            fill_uniform_f32((float *)io->host[i], count[i], rng_derive(seed, b->draw), b->lo,
                             b->hi);
    }
    return 1;
}

/* A correctness check's inputs (and sources), drawn and answered, to the device. */
static inline void lab_io_upload(lab_io *io)
{
    for (int i = 0; i < io->n_bufs; i++)
        if (lab_io_drawn(&io->spec[i]))
            dbuf_upload(&io->buf[i], io->host[i], io->n[i] * sizeof(float));
}

/* Buffer i's host copy (an input's values), and an output's CPU answer. */
static inline float *lab_io_in(lab_io *io, int i) { return (float *)io->host[i]; }
static inline unsigned *lab_io_in_u32(lab_io *io, int i) { return (unsigned *)io->host[i]; }
static inline unsigned *lab_io_expected_u32(lab_io *io, int i) { return (unsigned *)io->expected[i]; }
static inline float *lab_io_expected_f(lab_io *io, int i) { return (float *)io->expected[i]; }
static inline double *lab_io_expected_d(lab_io *io, int i) { return (double *)io->expected[i]; }
static inline void *lab_io_dev(lab_io *io, int i) { return io->buf[i].data; }
static inline dbuf *lab_io_dbuf(lab_io *io, int i) { return &io->buf[i]; }

static inline void lab_io_free(lab_io *io)
{
    for (int i = 0; i < io->n_bufs; i++) {
        dbuf_free(&io->buf[i]);
        free(io->host[i]);
        free(io->expected[i]);
    }
}

/* A correctness check's input drawn from a grid of `distinct` values, and its CPU answer: for
 * each of the n elements, k uniform in [0, distinct) from stream `draw` of the seed, in[i] =
 * value(k) and expected[i] = answer(k). The answer is computed once per distinct value (a
 * lazily filled table) instead of once per element: a chain of thousands of steps per element
 * (labs 03 and 04) then keeps a check of millions of elements to a fraction of a second. */
static inline void lab_io_draw_memo(float *in, double *expected, size_t n, uint64_t seed,
                                    int draw, int distinct, float (*value)(int k),
                                    double (*answer)(int k))
{
    double *table = (double *)xmalloc((size_t)distinct * sizeof(double));
    unsigned char *known = (unsigned char *)xcalloc((size_t)distinct, 1);
    rng r;
    rng_seed(&r, rng_derive(seed, draw));
    for (size_t i = 0; i < n; i++) {
        const int k = (int)(rng_u64(&r) % (uint64_t)distinct);
        in[i] = value(k);
        if (!known[k]) {
            table[k] = answer(k);
            known[k] = 1;
        }
        expected[i] = table[k];
    }
    free(table);
    free(known);
}

/* Before each call: every output poisoned, so that an element the call leaves unwritten shows
 * (an output the call reads as well restored to its entry values instead: an element it skips
 * keeps an old value, which is wrong); every workspace poisoned; every scratch zeroed. */
static inline void lab_io_prepare(lab_io *io, cudaStream_t s)
{
    for (int i = 0; i < io->n_bufs; i++) {
        const lab_io_buf *b = &io->spec[i];
        if (b->role == LAB_IO_OUTPUT && b->restore)
            CUDA_CHECK(cudaMemcpyAsync(io->buf[i].data, io->buf[b->restore - 1].data,
                                       io->n[i] * sizeof(float), cudaMemcpyDeviceToDevice, s));
        else if (b->role == LAB_IO_OUTPUT || b->role == LAB_IO_WORKSPACE)
            dbuf_poison(&io->buf[i], s);
        else if (b->role == LAB_IO_SCRATCH)
            CUDA_CHECK(cudaMemsetAsync(io->buf[i].data, 0, io->n[i] * sizeof(float), s));
    }
}

/* The ceiling of a task that only moves data: buffer `from`'s bytes written to buffer `to`,
 * as many as `to` holds, by the copy engine's best path. */
static inline void lab_io_copy(lab_io *io, int to, int from, cudaStream_t s)
{
    CUDA_CHECK(cudaMemcpyAsync(io->buf[to].data, io->buf[from].data, io->n[to] * sizeof(float),
                               cudaMemcpyDeviceToDevice, s));
}

/* Unsigned words of an output, exactly: the counterexample shows integers. */
static inline void lab_io_check_u32(lab_io *io, int i, verify_result *v)
{
    unsigned *got = (unsigned *)io->host[i];
    const unsigned *want = lab_io_expected_u32(io, i);
    dbuf_download(&io->buf[i], got, io->n[i] * sizeof(unsigned));
    memset(&v->out, 0, sizeof v->out);
    v->out.n = io->n[i];
    for (size_t k = 0; k < io->n[i]; k++)
        if (got[k] != want[k] && v->out.n_bad++ == 0) {
            v->out.first_bad = k;
            v->out.got = got[k];
            v->out.expected = want[k];
        }
    v->guard_ok = dbuf_guards_intact(&io->buf[i], &v->guard_at);
}

/* Every output against its CPU answer (a bad element shown at its row and column, rows `cols`
 * long; 0: not shown so), every scratch buffer's guards, then every input unchanged. Outputs
 * the lab checks itself, workspaces and sources are passed over. */
static inline void lab_io_verify(lab_io *io, size_t cols, verify_result *v)
{
    for (int i = 0; i < io->n_bufs; i++) {
        const lab_io_buf *b = &io->spec[i];
        long long at = 0;
        if (b->role == LAB_IO_SCRATCH && !dbuf_guards_intact(&io->buf[i], &at))
            snprintf(v->problem, sizeof v->problem,
                     "wrote outside the scratch buffer (byte %lld of %zu): it holds %s", at,
                     io->n[i] * sizeof(float), b->holds);
        if (b->role != LAB_IO_OUTPUT || b->lab_checked)
            continue;
        if (b->u32)
            lab_io_check_u32(io, i, v);
        else if (b->exact)
            harness_check_exact(&io->buf[i], lab_io_expected_f(io, i), io->n[i],
                                (float *)io->host[i], v);
        else
            harness_check_close(&io->buf[i], lab_io_expected_d(io, i), io->scale[i], io->n[i],
                                b->rel, b->abs, (float *)io->host[i], v);
    }
    if (cols)
        v->cols = cols;
    for (int i = 0; i < io->n_bufs; i++)
        if (io->spec[i].role == LAB_IO_INPUT)
            harness_check_input(&io->buf[i], io->host[i], io->n[i] * sizeof(float), v);
}

/* A speed check's inputs (and sources), drawn on the device as lab_io_create draws them on
 * the host. */
static inline void lab_io_refresh(lab_io *io, uint64_t seed, cudaStream_t s)
{
    for (int i = 0; i < io->n_bufs; i++) {
        const lab_io_buf *b = &io->spec[i];
        if (!lab_io_drawn(b))
            continue;
        if (b->u32)
            dev_fill_u32((unsigned *)io->buf[i].data, io->n[i], rng_derive(seed, b->draw), s);
        else if (b->n_choice > 0)
            dev_fill_choice_f32((float *)io->buf[i].data, io->n[i], rng_derive(seed, b->draw),
                                b->choice, b->n_choice, s);
        else
            dev_fill_f32((float *)io->buf[i].data, io->n[i], rng_derive(seed, b->draw), b->lo,
                         b->hi, b->step, s);
    }
}

/* The outputs the harness compares between two implementations, each within its bound of the
 * exact answer, so twice that apart (a lab whose bound is not rel * |expected| + abs, lab 07's
 * or lab 09's, sets its own on the entry), and each scratch buffer for its guards alone; then
 * (lab_io_inputs) the inputs it checks unchanged; each in spec's order. */
static inline int lab_io_outputs(lab_io *io, lab_output *out, int max)
{
    int k = 0;
    for (int i = 0; i < io->n_bufs && k < max; i++) {
        const lab_io_buf *b = &io->spec[i];
        if (b->role == LAB_IO_SCRATCH) {
            out[k++] = (lab_output){io->buf[i].data, 0, DEV_F32, 0, 0, &io->buf[i]};
            continue;
        }
        if (b->role != LAB_IO_OUTPUT)
            continue;
        if (b->u32 || b->agree)
            out[k++] = (lab_output){io->buf[i].data, io->n[i], b->u32 ? DEV_U32 : DEV_F32, 0, 0,
                                    &io->buf[i]};
        else
            out[k++] = (lab_output){io->buf[i].data, io->n[i], DEV_F32, 2 * b->rel, 2 * b->abs,
                                    &io->buf[i]};
    }
    return k;
}

static inline int lab_io_inputs(lab_io *io, lab_input *in, int max)
{
    int k = 0;
    for (int i = 0; i < io->n_bufs && k < max; i++)
        if (io->spec[i].role == LAB_IO_INPUT)
            in[k++] = (lab_input){io->buf[i].data, io->n[i] * sizeof(float)};
    return k;
}

/* The hooks of a problem whose struct begins with its lab_io (each lab checks this with a
 * static_assert): its freeing, the poisoning (restoring, zeroing) before each call, a speed
 * check's fresh inputs, and the outputs and inputs the harness reads. The lab's table names
 * them as they are, or a hook of the lab's own calls them and adds what is its own. */
static inline void lab_io_hook_destroy(void *vp)
{
    lab_io_free((lab_io *)vp);
    free(vp);
}

static inline void lab_io_hook_prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    lab_io_prepare((lab_io *)vp, s);
}

static inline void lab_io_hook_refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    lab_io_refresh((lab_io *)vp, seed, s);
}

static inline int lab_io_hook_outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)s;
    return lab_io_outputs((lab_io *)vp, out, max);
}

static inline int lab_io_hook_inputs(void *vp, lab_input *in, int max)
{
    return lab_io_inputs((lab_io *)vp, in, max);
}

/* The problem's work, in the task's unit: its lab's footprint of its size (lab_io_size). */
static inline double lab_io_hook_work(const void *vp)
{
    const lab_io *io = (const lab_io *)vp;
    lab_footprint f;
    io->lab->footprint(io->task, io->size, &f);
    return f.work;
}

#endif
