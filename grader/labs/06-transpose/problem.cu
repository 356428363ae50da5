/* problem.cu - lab 06's problem for the harness: inputs, calls, verification, sizes.
 *
 * out (cols x rows) = transpose of in (rows x cols), row-major. The data only moves, so the
 * output is compared bit for bit with the CPU's transpose. The ceiling is cudaMemcpy of the
 * same number of bytes, device to device: a transpose reads and writes every byte once, as a
 * copy does, and cannot do better than the copy engine's best path. The copy runs here, in
 * the harness (trusted code); the student's file and the reference run in worker processes,
 * behind grader/labs/06-transpose/shim_untrusted.cu. */
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "transpose.h"
#include "../lab_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_transpose; /* the table, table.c */

typedef struct problem {
    lab_io io;          /* first: the lab_io hooks take the problem as its lab_io */
    int rows, cols;     /* shape of the input; the output is cols x rows */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* in (drawn from stream 1 of the seed), then out: the data only moves, so two right answers,
 * and the CPU's, are equal bit for bit */
enum { IN, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                     */

/* Transpose in 64 x 64 blocks, so that both sides stay in the CPU's caches. */
static void cpu_transpose(float *out, const float *in, int rows, int cols)
{
    for (int rb = 0; rb < rows; rb += 64)
        for (int cb = 0; cb < cols; cb += 64) {
            const int re = rb + 64 < rows ? rb + 64 : rows, ce = cb + 64 < cols ? cb + 64 : cols;
            for (int r = rb; r < re; r++)
                for (int c = cb; c < ce; c++)
                    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
        }
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_transpose, 0, size);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    const size_t count[] = {(size_t)p->rows * p->cols, (size_t)p->rows * p->cols};
    if (lab_io_create(&p->io, bufs, 2, count, seed)) {
        cpu_transpose(lab_io_expected_f(&p->io, OUT), lab_io_in(&p->io, IN), p->rows, p->cols);
        lab_io_upload(&p->io);
    }
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING)
        lab_io_copy(&p->io, OUT, IN, s);
    else
        harness_call(impl, s, LAB_ENTRY_transpose, LAB_WIRE_transpose, lab_io_dev(&p->io, OUT),
                     lab_io_dev(&p->io, IN), p->rows, p->cols);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    lab_io_verify(&p->io, (size_t)p->rows, v); /* a row of the output is `rows` long */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d x %d", p->rows, p->cols);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 1200);
    size[1] = rng_range(r, 1, 1200);
    switch (rng_range(r, 0, 3)) {
    case 0: /* both multiples of 4 (of 64 too, one draw in 16): the paths that use 16-byte accesses */
        size[0] = 4 * rng_range(r, 1, 300);
        size[1] = 4 * rng_range(r, 1, 300);
        break;
    case 1: /* a tile's edge plus or minus one */
        size[0] = 32 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
        break;
    default: /* as drawn */
        break;
    }
}

const lab_info *const harness_lab = &lab_transpose;
const lab_task harness_tasks[] = {
    {.name = "transpose", .unit = "GB/s", .ceiling = "cudaMemcpy D2D",
     .create = create, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
