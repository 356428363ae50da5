/* problem.cu - lab 03's problem for the harness: inputs, calls, verification, sizes.
 *
 * Every element runs its class's chain of fused multiply-adds, DIVERGENCE_STEPS_0 (256) to
 * DIVERGENCE_STEPS_3 (2048) of them (contract: grader/labs/03-divergence/divergence.h). Inputs are multiples of 2^-14 in [0, 4), drawn from the
 * seed, so at most 65536 distinct values exist: the double-precision CPU reference runs the
 * chain once per distinct value (a lazily filled table) instead of once per element, which
 * keeps a 32-million-element check to a fraction of a second.
 *
 * The ceiling is a true bound: the chains' fused multiply-adds at the FP32 FMA peak of the
 * clock measured in the same run (ceiling_ms). The branch-free baseline, the same arithmetic
 * with the class as data and no branch at all, is a ladder rung
 * (solutions/03-divergence/steps/2-class-as-data.cu), not a ceiling: the reference beats it.
 * The student's file and the reference run in worker processes, behind
 * grader/labs/03-divergence/shim_untrusted.cu. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "divergence.h"
#include "../lab_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_divergence; /* the table, table.c */

#define GRID_BITS 14                   /* inputs are k * 2^-GRID_BITS */
#define DISTINCT (4 << GRID_BITS)      /* distinct inputs in [0, 4) */
/* The CPU check's relative bound and absolute floor (why: see verify): the longest chain's. */
#define DIVERGENCE_TOL ((2.0 * DIVERGENCE_STEPS_MAX + 8.0) * 0x1p-24)
#define DIVERGENCE_FLOOR 1e-30

typedef struct problem {
    lab_io io;          /* first: the lab_io hooks take the problem as its lab_io */
    int n;              /* elements */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* in: multiples of 2^-14 in [0, 4), class and parameter uniform (drawn here on the host, from
 * stream 1 of the seed; on the device by dev_fill_f32 in the same steps); out: within
 * DIVERGENCE_TOL (relative) of the exact chain, see verify */
enum { IN, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN_OWN(1, 0.f, 4.f, 0x1p-14f),
                                  LAB_IO_OUT_CLOSE(DIVERGENCE_TOL, DIVERGENCE_FLOOR)};

/* ---------------------------------------------------------------------------------------- */
/* CPU reference                                                                              */

/* Input k of the grid, k * 2^-14 (exact in float). */
static float input_of(int k)
{
    return (float)ldexp((double)k, -GRID_BITS);
}

/* The contract's chain for input k * 2^-14, in double. m and b are exact in float, so these
 * are the very constants the GPU uses; only the roundings of the steps differ. */
static double evolve_cpu(int k)
{
    const int c = k >> GRID_BITS;
    const double f = (k & ((1 << GRID_BITS) - 1)) * ldexp(1.0, -GRID_BITS);
    double m, b;
    int steps;
    switch (c) {
    case 0: m = 1.0 - ldexp(1.0, -8) + f * ldexp(1.0, -9), b = f, steps = DIVERGENCE_STEPS_0; break;
    case 1: m = 1.0 - ldexp(1.0, -9) + f * ldexp(1.0, -9), b = 1.0 - f, steps = DIVERGENCE_STEPS_1; break;
    case 2: m = 1.0 + f * ldexp(1.0, -9), b = 0.5 * f, steps = DIVERGENCE_STEPS_2; break;
    default: m = 1.0 + ldexp(1.0, -9) - f * ldexp(1.0, -9), b = 0.25, steps = DIVERGENCE_STEPS_3; break;
    }
    double y = f;
    for (int s = 0; s < steps; s++)
        y = y * m + b;
    return y;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_divergence, 0, size);
    p->n = (int)size[0];
    const size_t count[] = {(size_t)p->n, (size_t)p->n};
    if (!lab_io_create(&p->io, bufs, 2, count, seed))
        return p; /* a speed check's problem: refresh() makes the inputs */
    /* k uniform: class and parameter uniform; the chain runs once per distinct input */
    lab_io_draw_memo(lab_io_in(&p->io, IN), lab_io_expected_d(&p->io, OUT), (size_t)p->n, seed,
                     1, DISTINCT, input_of, evolve_cpu);
    lab_io_upload(&p->io);
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) /* computed, never run (ceiling_ms) */
        fatal("lab divergence: the ceiling is the FMA peak, computed");
    harness_call(impl, s, LAB_ENTRY_divergence, LAB_WIRE_divergence, lab_io_dev(&p->io, OUT),
                 lab_io_dev(&p->io, IN), p->n);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    /* Bound: every term of the chain is >= 0 (y0 = f >= 0, m > 0, b >= 0), so a rounding
     * error of a step is never amplified by cancellation: each of a chain's K steps adds at
     * most u = 2^-24 to the relative error when fused, 2u when the multiply and the add round
     * separately, so (2K + 8) u admits both. One bound for every class, the longest chain's
     * (K = DIVERGENCE_STEPS_MAX = 2048): about 2.4e-4. A wrong class changes the rule and the
     * step count (by a factor of 2 or more) and moves the result beyond the bound for all but
     * a handful of parameters (where two classes' results cross). One step too few or too
     * many moves every nonzero result (f > 0) of class 0 by 2.2e-3 or more, of class 2 by
     * 9.7e-4, and every result of class 3 by 4.8e-4 (about twice the bound), so a wrong step count
     * cannot pass (class 1 approaches a fixed point as f nears 1, where a single step can
     * hide under the bound; its other elements show it). */
    lab_io_verify(&p->io, 0, v);
}

static void describe(const void *vp, char *buf, size_t len)
{
    snprintf(buf, len, "n = %d", ((const problem *)vp)->n);
}

/* The chains' flops at the FP32 FMA peak of the measured clock: no kernel is faster. */
static double ceiling_fma(void *vp, const device_info *d, double clock_mhz, cudaStream_t s)
{
    (void)s;
    return lab_io_hook_work(vp) / (device_fma_peak_gflops(d, clock_mhz) * 1e6);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    switch (rng_range(r, 0, 3)) {
    case 0: size[0] = rng_range(r, 1, 100); break;                            /* tiny */
    case 1: size[0] = 2048 * rng_range(r, 1, 64) + rng_range(r, -1, 1); break; /* tile edges */
    default: size[0] = rng_range(r, 1000, 2000000); break;
    }
    if (size[0] < 1)
        size[0] = 1;
}

const lab_info *const harness_lab = &lab_divergence;
const lab_task harness_tasks[] = {
    {.name = "divergence", .unit = "GFLOP/s", .ceiling = "FP32 FMA peak", .create = create,
     .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size, .ceiling_ms = ceiling_fma,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
