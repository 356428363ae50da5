/* problem.cu - lab 02's problem for the harness: inputs, calls, verification, sizes.
 *
 * Rolling maximum over 32 steps of `series` time series stored time-major (contract:
 * labs/02-banks/banks.h). A maximum only selects one of its inputs, so the output is compared
 * bit for bit with the CPU result.
 *
 * The ceiling (IMPL_CEILING) is a device-to-device copy of the same bytes: one read and one
 * write of every element is the least any rolling maximum must move. The lesson's algorithm
 * (a window of 32 slots in shared memory, all read for every output) stays well below it: it
 * is bound by shared memory, not by DRAM, and removing bank conflicts is what brings it to
 * that bound (solutions/02-banks/steps/7-slot-major.cu, conflict-free by layout, is the rung
 * the reference should match). The student's file and the reference run in worker
 * processes, behind grader/labs/02-banks/shim_untrusted.cu. */
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "banks.h"
#include "../lab_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_banks; /* the table, table.c */

typedef struct problem {
    lab_io io;          /* first: the lab_io hooks take the problem as its lab_io */
    int steps, series;  /* time steps (rows) and series (columns) */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* in (drawn from stream 1 of the seed), then out: the data only moves, so two right answers,
 * and the CPU's, are equal bit for bit */
enum { IN, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                     */

/* out[t][s] = max of in[u][s] over the window: one pass per window row, each a loop over the
 * contiguous series index that the compiler vectorizes. */
static void cpu_rolling_max(float *out, const float *in, int steps, int series)
{
    for (int t = 0; t < steps; t++) {
        float *o = out + (size_t)t * series;
        memcpy(o, in + (size_t)t * series, (size_t)series * sizeof(float));
        const int first = t - (ROLLING_WINDOW - 1) > 0 ? t - (ROLLING_WINDOW - 1) : 0;
        for (int u = first; u < t; u++) {
            const float *x = in + (size_t)u * series;
            for (int s = 0; s < series; s++)
                o[s] = x[s] > o[s] ? x[s] : o[s];
        }
    }
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_banks, 0, size);
    p->steps = (int)size[0];
    p->series = (int)size[1];
    const size_t count[] = {(size_t)p->steps * p->series, (size_t)p->steps * p->series};
    if (lab_io_create(&p->io, bufs, 2, count, seed)) {
        cpu_rolling_max(lab_io_expected_f(&p->io, OUT), lab_io_in(&p->io, IN), p->steps, p->series);
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
        harness_call(impl, s, LAB_ENTRY_rolling_max, LAB_WIRE_rolling_max, lab_io_dev(&p->io, OUT),
                     lab_io_dev(&p->io, IN), p->steps, p->series);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    lab_io_verify(&p->io, (size_t)p->series, v); /* a bad element shows as (step, series) */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d steps x %d series", p->steps, p->series);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 300);
    size[1] = rng_range(r, 1, 5000);
    if (rng_range(r, 0, 1)) /* a window's length, or a block's width, plus or minus one */
        size[0] = 32 * rng_range(r, 1, 8) + (rng_range(r, 0, 1) ? 1 : -1);
    if (rng_range(r, 0, 1))
        size[1] = 128 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
}

const lab_info *const harness_lab = &lab_banks;
const lab_task harness_tasks[] = {
    {.name = "rolling_max", .unit = "GB/s", .ceiling = "cudaMemcpy D2D",
     .create = create, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
