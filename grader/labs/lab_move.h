/* lab_move.h - TRUSTED, the harness's side: the problem of a lab whose one task only moves a
 * matrix (lab 02's rolling maximum, lab 06's transpose), written once on lab_io.h. One rows x
 * cols matrix of floats in, drawn uniform in [-1, 1) from stream 1 of the seed; one output of
 * as many floats, compared bit for bit with the CPU's (the data only moves, so two right
 * answers, and the CPU's, are equal bit for bit); the call, entry(out, in, rows, cols); the
 * ceiling (IMPL_CEILING), a device-to-device copy of the same bytes by the copy engine's best
 * path: one read and one write of every element is the least such a task must move.
 *
 * A lab defines its task as lab_move_task, as it defines harness_lab, and keeps what is its
 * own (its CPU answer, its hidden sizes, the words of its sizes):
 *
 *     const lab_move lab_move_task = {cpu_x, LAB_ENTRY_x, LAB_WIRE_x, 0, "%d x %d"};
 *     const lab_info *const harness_lab = &lab_x;
 *     const lab_task harness_tasks[] = {LAB_MOVE_TASK("x", hidden_size)};
 */
#ifndef LABS_LAB_MOVE_H
#define LABS_LAB_MOVE_H

#include "lab_io.h"

#include <stddef.h>
#include <stdio.h>

/* A lab's data-moving task, as the lab declares it. */
typedef struct lab_move {
    void (*answer)(float *out, const float *in, int rows, int cols); /* the CPU's output */
    int entry;            /* LAB_ENTRY_x: the entry point, called (out, in, rows, cols) */
    const char *wire;     /* LAB_WIRE_x: its arguments as harness_call packs them */
    int transposed;       /* 1: out is cols x rows; 0: rows x cols, as in (a wrong element is
                             shown at its row and column of out) */
    const char *shape;    /* describe's format of rows and cols: "%d steps x %d series" */
} lab_move;

/* Defined by the lab's problem.cu (its lab is harness_lab). */
extern const lab_move lab_move_task;

typedef struct lab_move_problem {
    lab_io io;            /* first: the lab_io hooks take the problem as its lab_io */
    int rows, cols;       /* size[0] and size[1]: the input's shape */
} lab_move_problem;
static_assert(offsetof(lab_move_problem, io) == 0,
              "lab_io_hook_* take the problem for its lab_io");

/* in (drawn from stream 1 of the seed), then out, exact */
enum { LAB_MOVE_IN, LAB_MOVE_OUT };
static const lab_io_buf lab_move_bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};

/* The problem at size (rows, cols): on a correctness check, its input drawn and the CPU's
 * answer made, both uploaded; a speed check's problem gets its inputs from refresh(). */
static inline void *lab_move_hook_create(const long long size[LAB_MAX_DIMS], uint64_t seed,
                                         const device_info *d)
{
    (void)d;
    lab_move_problem *p = (lab_move_problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, harness_lab, 0, size);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    const size_t count[] = {(size_t)p->rows * p->cols, (size_t)p->rows * p->cols};
    if (lab_io_create(&p->io, lab_move_bufs, 2, count, seed)) {
        lab_move_task.answer(lab_io_expected_f(&p->io, LAB_MOVE_OUT),
                             lab_io_in(&p->io, LAB_MOVE_IN), p->rows, p->cols);
        lab_io_upload(&p->io);
    }
    return p;
}

static inline void lab_move_hook_run(void *vp, int impl, cudaStream_t s)
{
    lab_move_problem *p = (lab_move_problem *)vp;
    if (impl == IMPL_CEILING)
        lab_io_copy(&p->io, LAB_MOVE_OUT, LAB_MOVE_IN, s);
    else
        harness_call(impl, s, lab_move_task.entry, lab_move_task.wire,
                     lab_io_dev(&p->io, LAB_MOVE_OUT), lab_io_dev(&p->io, LAB_MOVE_IN), p->rows,
                     p->cols);
}

static inline void lab_move_hook_verify(void *vp, verify_result *v)
{
    lab_move_problem *p = (lab_move_problem *)vp;
    /* a row of out is `cols` long, or `rows` where out is the transpose */
    lab_io_verify(&p->io, (size_t)(lab_move_task.transposed ? p->rows : p->cols), v);
}

static inline void lab_move_hook_describe(const void *vp, char *buf, size_t len)
{
    const lab_move_problem *p = (const lab_move_problem *)vp;
    snprintf(buf, len, lab_move_task.shape, p->rows, p->cols);
}

/* The lab's one task, in its table harness_tasks: its name and its hidden sizes; every other
 * hook is this header's or lab_io.h's. */
#define LAB_MOVE_TASK(task_name, hidden_size_hook)                                          \
    {.name = (task_name), .unit = "GB/s", .ceiling = "cudaMemcpy D2D",                     \
     .create = lab_move_hook_create, .destroy = lab_io_hook_destroy,                       \
     .prepare = lab_io_hook_prepare, .run = lab_move_hook_run, .verify = lab_move_hook_verify, \
     .work = lab_io_hook_work, .describe = lab_move_hook_describe,                          \
     .hidden_size = (hidden_size_hook), .refresh = lab_io_hook_refresh,                    \
     .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs}

#endif
