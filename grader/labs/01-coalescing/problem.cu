/* problem.cu - lab 01's problem for the harness: inputs, calls, verification, sizes.
 *
 * out[r][c] = in[r][c] * scale[r] + bias[r] on a row-major matrix. Verified against a
 * double-precision CPU result with a bound of about one float rounding (fused or unfused
 * multiply-add both pass; a wrong element is off by far more). */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "coalescing.h"
#include "../lab_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_coalescing; /* the table, table.c */

typedef struct problem {
    lab_io io;          /* first: the lab_io hooks take the problem as its lab_io */
    int rows, cols;     /* matrix shape */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* in, scale, bias (each drawn from its own stream of the seed), then out: within one rounding
 * of a product below 2 plus a sum below 3 of the double-precision answer, |error| <= 2^-23
 * |expected| + 1e-6 */
enum { IN, SCALE, BIAS, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_IN(2, 0.5f, 2.f),
                                  LAB_IO_IN(3, -1.f, 1.f), LAB_IO_OUT_CLOSE(0x1p-23, 1e-6)};

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_coalescing, 0, size);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    const size_t n = (size_t)p->rows * p->cols, count[] = {n, (size_t)p->rows, (size_t)p->rows, n};
    if (!lab_io_create(&p->io, bufs, 4, count, seed))
        return p; /* a speed check's problem: refresh() makes the inputs */
    const float *in = lab_io_in(&p->io, IN), *scale = lab_io_in(&p->io, SCALE),
                *bias = lab_io_in(&p->io, BIAS);
    double *expected = lab_io_expected_d(&p->io, OUT);
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            const size_t i = (size_t)r * p->cols + c;
            expected[i] = (double)in[i] * scale[r] + bias[r];
        }
    lab_io_upload(&p->io);
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    lab_io *io = &p->io;
    if (impl == IMPL_CEILING) /* the same bytes read and written, by the copy engine's best path */
        lab_io_copy(io, OUT, IN, s);
    else
        harness_call(impl, s, LAB_ENTRY_coalescing, LAB_WIRE_coalescing, lab_io_dev(io, OUT),
                     lab_io_dev(io, IN), lab_io_dev(io, SCALE), lab_io_dev(io, BIAS), p->rows,
                     p->cols);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    lab_io_verify(&p->io, (size_t)p->cols, v);
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d x %d", p->rows, p->cols);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 600);
    size[1] = rng_range(r, 1, 1500);
    if (rng_range(r, 0, 1)) /* one warp's worth plus or minus one */
        size[1] = 32 * rng_range(r, 1, 40) + (rng_range(r, 0, 1) ? 1 : -1);
}

const lab_info *const harness_lab = &lab_coalescing;
const lab_task harness_tasks[] = {
    {.name = "coalescing", .unit = "GB/s", .ceiling = "cudaMemcpy D2D", .create = create,
     .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
