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
#include "../float_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_banks; /* the table, table.c */

typedef struct problem {
    float_io io;        /* first: the float_io hooks take the problem as their float_io */
    int steps, series;  /* time steps (rows) and series (columns) */
} problem;
static_assert(offsetof(problem, io) == 0, "float_io_hook_* take the problem for its float_io");

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
    p->steps = (int)size[0];
    p->series = (int)size[1];
    if (float_io_create(&p->io, (size_t)p->steps * p->series, seed))
        cpu_rolling_max(p->io.h_expected, p->io.h_in, p->steps, p->series);
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING)
        float_io_ceiling(&p->io, s);
    else
        harness_call(impl, s, LAB_ENTRY_rolling_max, LAB_WIRE_rolling_max, p->io.out.data, p->io.in.data, p->steps, p->series);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    float_io_verify(&p->io, (size_t)p->series, v); /* a bad element shows as (step, series) */
}

static double work(const void *vp)
{
    const problem *p = (const problem *)vp;
    const long long size[LAB_MAX_DIMS] = {p->steps, p->series};
    lab_footprint f;
    lab_banks.footprint(0, size, &f);
    return f.work;
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
     .create = create, .destroy = float_io_hook_destroy, .prepare = float_io_hook_prepare,
     .run = run, .verify = verify, .work = work, .describe = describe, .hidden_size = hidden_size,
     .refresh = float_io_hook_refresh, .outputs = float_io_hook_outputs, .inputs = float_io_hook_inputs},
};
const int harness_n_tasks = 1;
