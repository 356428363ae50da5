/* problem.cu - lab 04's problems for the harness: inputs, calls, verification, sizes.
 *
 * Two tasks (contract: grader/labs/04-ilp/ilp.h), both at a launch the grader fixes: one block
 * per SM, 1/8 of an SM's thread slots per block.
 *   0 memory: out[i] = in[i] * a. One rounded multiply: compared bit for bit.
 *   1 arith:  ILP_STEPS dependent FMAs per element, against a double-precision CPU chain.
 *
 * Implementations run in their worker processes behind the lab's shim
 * (grader/labs/04-ilp/shim_untrusted.cu), which enforces the launch: it captures the entry point's
 * call into a CUDA graph, checks that the graph is exactly one kernel with gridDim =
 * (blocks, 1, 1) and blockDim = (threads, 1, 1), and launches that graph on the stream, so
 * what runs (and is timed) is exactly what was checked. A broken rule comes back as text
 * (harness_problem) and fails the check. Under the CPU emulator there are no graphs: the
 * entry point is called directly and the shape is not checked.
 *
 * Speed checks: device-only problems, fresh inputs on the device every round, and the
 * student's output compared with the reference's bit for bit (both are one correctly rounded
 * multiply, or a chain of fmaf, per element: the contract fixes every bit).
 *
 * Ceilings: memory, cudaMemcpy device to device of the same bytes; arith, the FP32 FMA peak
 * (SMs x FP32 lanes per SM x 2 flops x the SM clock measured under load). The teaching
 * ladder (loads in flight per thread, chains per thread, full occupancy) lives in
 * solutions/04-ilp/steps/ and runs through the same shim in make bench. */
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "ilp.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_ilp; /* the table, table.c */

enum { TASK_MEMORY, TASK_ARITH }; /* also the shim's entry points, in this order */

#define ARITH_GRID 16384 /* arith inputs are 1 + (k - 8192) * 2^-23, 0 <= k < 16384 */

typedef struct problem {
    int task;              /* TASK_MEMORY or TASK_ARITH */
    int n;                 /* elements */
    float a;               /* memory: the scale factor */
    int blocks, threads;   /* the fixed launch: one block per SM, 1/8 of its thread slots */
    float *h_in;           /* host copy of the input */
    float *h_exact;        /* memory: the expected output, bit for bit */
    double *h_expected;    /* arith: the CPU chain in double precision */
    float *h_got;          /* scratch for the downloaded output */
    dbuf in, out;          /* device buffers, guarded */
} problem;

/* ---------------------------------------------------------------------------------------- */
/* CPU reference and inputs                                                                   */

/* The contract's chain in double for x = 1 + (k - 8192) * 2^-23 (exact in float). */
static double chain_cpu(int k)
{
    const double x = 1.0 + (k - ARITH_GRID / 2) * ldexp(1.0, -23);
    double y = x;
    for (int s = 0; s < ILP_STEPS; s++)
        y = y * x + (double)ILP_C;
    return y;
}

/* The memory task's scale factor, in [0.5, 2), from the problem's seed (create() draws it once). */
static float draw_scale(uint64_t seed)
{
    rng r;
    rng_seed(&r, rng_derive(seed, 2));
    return (float)(0.5 + 1.5 * rng_unit(&r));
}

static void *create(int task, const long long size[LAB_MAX_DIMS], uint64_t seed,
                    const device_info *d)
{
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->task = task;
    p->n = (int)size[0];
    p->blocks = d->sm_count;
    p->threads = (d->max_threads_per_sm / 8) / 32 * 32;
    if (p->threads < 32)
        p->threads = 32;
    const size_t bytes = (size_t)p->n * sizeof(float);
    dbuf_alloc(&p->in, bytes);
    dbuf_alloc(&p->out, bytes);
    if (task == TASK_MEMORY)
        p->a = draw_scale(seed);
    if (harness_device_only) /* a speed check's problem: refresh() makes the inputs */
        return p;
    p->h_in = (float *)xmalloc(bytes);
    p->h_got = (float *)xmalloc(bytes);
    if (task == TASK_MEMORY) {
        fill_uniform_f32(p->h_in, (size_t)p->n, rng_derive(seed, 1), -1.f, 1.f);
        p->h_exact = (float *)xmalloc(bytes);
        /* The product of two floats is exact in double; rounding it to float once is what
         * the GPU's single multiply does. */
        for (int i = 0; i < p->n; i++)
            p->h_exact[i] = (float)((double)p->h_in[i] * p->a);
    } else {
        /* 16384 distinct inputs near 1, where x^ILP_STEPS stays between 1/e and e: every
         * step matters to the result. The CPU chain runs once per distinct input. */
        rng r;
        rng_seed(&r, rng_derive(seed, 2));
        double *table = (double *)xmalloc(ARITH_GRID * sizeof(double));
        unsigned char *known = (unsigned char *)xcalloc(ARITH_GRID, 1);
        p->h_expected = (double *)xmalloc((size_t)p->n * sizeof(double));
        for (int i = 0; i < p->n; i++) {
            const int k = (int)(rng_u64(&r) % ARITH_GRID);
            p->h_in[i] = (float)(1.0 + (k - ARITH_GRID / 2) * ldexp(1.0, -23));
            if (!known[k]) {
                table[k] = chain_cpu(k);
                known[k] = 1;
            }
            p->h_expected[i] = table[k];
        }
        free(table);
        free(known);
    }
    dbuf_upload(&p->in, p->h_in, bytes);
    return p;
}

static void *create_memory(const long long size[LAB_MAX_DIMS], uint64_t seed,
                           const device_info *d)
{
    return create(TASK_MEMORY, size, seed, d);
}

static void *create_arith(const long long size[LAB_MAX_DIMS], uint64_t seed,
                          const device_info *d)
{
    return create(TASK_ARITH, size, seed, d);
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->out);
    free(p->h_in);
    free(p->h_exact);
    free(p->h_expected);
    free(p->h_got);
    free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Calls                                                                                      */

static void prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    dbuf_poison(&((problem *)vp)->out, s);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) { /* memory only; arith's ceiling is computed (ceiling_ms) */
        CUDA_CHECK(cudaMemcpyAsync(p->out.data, p->in.data, (size_t)p->n * sizeof(float),
                                   cudaMemcpyDeviceToDevice, s));
        return;
    }
    /* The shim records the launch, checks its shape and replays it (see the top). */
    if (p->task == TASK_MEMORY)
        harness_call(impl, s, LAB_ENTRY_ilp_memory, LAB_WIRE_ilp_memory, p->out.data, p->in.data, (double)p->a,
                     p->n, p->blocks, p->threads);
    else
        harness_call(impl, s, LAB_ENTRY_ilp_arith, LAB_WIRE_ilp_arith, p->out.data, p->in.data, p->n, p->blocks,
                     p->threads);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    if (p->task == TASK_MEMORY) {
        harness_check_exact(&p->out, p->h_exact, (size_t)p->n, p->h_got, v);
    } else {
        /* Bound: y0 = x > 0, x > 0 and ILP_C > 0, so every term of every step is positive
         * and no rounding error is amplified by cancellation: each of the K = ILP_STEPS steps
         * adds at most u = 2^-24 to the relative error when fused, 2u unfused. (2K + 8) u,
         * about 1.2e-4, admits both. One step too few or too many moves every result with
         * x >= 1 (half the inputs) by 2.5e-4 or more, so a wrong step count cannot pass. */
        const double tol = (2.0 * ILP_STEPS + 8.0) * 0x1p-24;
        harness_check_close(&p->out, p->h_expected, NULL, (size_t)p->n, tol, 0.0, p->h_got, v);
    }
    harness_check_input(&p->in, p->h_in, (size_t)p->n * sizeof(float), v);
    /* a launch of the wrong shape comes back from the shim (call_and_verify reports it) */
}

static double work_of(int task, const void *vp)
{
    const long long size[LAB_MAX_DIMS] = {((const problem *)vp)->n};
    lab_footprint f;
    lab_ilp.footprint(task, size, &f);
    return f.work;
}

static double work_memory(const void *vp)
{
    return work_of(TASK_MEMORY, vp);
}

static double work_arith(const void *vp)
{
    return work_of(TASK_ARITH, vp);
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "n=%d <<<%d,%d>>>", p->n, p->blocks, p->threads);
}

/* The arith ceiling: its flops at the FP32 FMA peak (SMs x lanes x 2 x measured clock). */
static double ceiling_arith(void *vp, const device_info *d, double clock_mhz, cudaStream_t s)
{
    (void)s;
    if (clock_mhz <= 0)
        clock_mhz = d->sm_clock_khz / 1e3;
    return work_arith(vp) / (device_fma_peak_gflops(d, clock_mhz) * 1e6);
}

static void hidden_size_memory(rng *r, long long size[LAB_MAX_DIMS])
{
    switch (rng_range(r, 0, 2)) {
    case 0: size[0] = rng_range(r, 1, 200); break;
    case 1: size[0] = 4 * 256 * rng_range(r, 1, 2000) + rng_range(r, 1, 3); break;
    default: size[0] = rng_range(r, 1000, 5000000); break;
    }
}

static void hidden_size_arith(rng *r, long long size[LAB_MAX_DIMS])
{
    switch (rng_range(r, 0, 2)) {
    case 0: size[0] = rng_range(r, 1, 200); break;
    case 1: size[0] = 256 * rng_range(r, 1, 2000) + rng_range(r, -1, 1); break;
    default: size[0] = rng_range(r, 1000, 1000000); break;
    }
    if (size[0] < 1)
        size[0] = 1;
}

/* Speed checks: new inputs on the device, drawn as create() draws them. The memory task's
 * scale factor stays the one create() drew: it is an argument of the call, and the shim replays
 * its recorded launch only for the same arguments. A new factor every round made every timed
 * call a new recording, and each recording's device synchronisation and output overwrite
 * (half a gigabyte on an H200: 0.12 ms) were timed with the kernel, a third of the reference's
 * time. New inputs every round are what keep an output from being reused. */
static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (p->task == TASK_MEMORY) {
        dev_fill_f32((float *)p->in.data, (size_t)p->n, rng_derive(seed, 1), -1.f, 1.f, 0.f, s);
    } else {
        /* 1 + (k - 8192) 2^-23 for k uniform in [0, 16384): multiples of 2^-23 in
         * [1 - 2^-10, 1 + 2^-10), all exact floats */
        const float half = (float)(ARITH_GRID / 2) * 0x1p-23f;
        dev_fill_f32((float *)p->in.data, (size_t)p->n, rng_derive(seed, 3), 1.f - half,
                     1.f + half, 0x1p-23f, s);
    }
}

static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max, (void)s;
    problem *p = (problem *)vp;
    /* bit for bit: one rounded multiply (memory) or the contract's fmaf chain (arith) has
     * exactly one right answer */
    out[0] = (lab_output){p->out.data, (size_t)p->n, DEV_F32, 0, 0, &p->out};
    return 1;
}

static int inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    problem *p = (problem *)vp;
    in[0] = (lab_input){p->in.data, (size_t)p->n * sizeof(float)};
    return 1;
}

const lab_info *const harness_lab = &lab_ilp;
const lab_task harness_tasks[] = {
    {.name = "ilp_memory", .unit = "GB/s", .ceiling = "cudaMemcpy D2D",
     .create = create_memory, .destroy = destroy, .prepare = prepare, .run = run,
     .verify = verify, .work = work_memory, .describe = describe,
     .hidden_size = hidden_size_memory, .refresh = refresh,
     .outputs = outputs, .inputs = inputs},
    {.name = "ilp_arith", .unit = "GFLOP/s", .ceiling = "FP32 FMA peak",
     .create = create_arith, .destroy = destroy, .prepare = prepare, .run = run,
     .verify = verify, .work = work_arith, .describe = describe,
     .hidden_size = hidden_size_arith,
     .ceiling_ms = ceiling_arith, .refresh = refresh, .outputs = outputs, .inputs = inputs},
};
const int harness_n_tasks = 2;
