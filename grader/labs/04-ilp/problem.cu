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
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "ilp.h"
#include "../lab_io.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_ilp; /* the table, table.c */

enum { TASK_MEMORY, TASK_ARITH }; /* also the shim's entry points, in this order */

#define ARITH_GRID 16384 /* arith inputs are 1 + (k - 8192) * 2^-23, 0 <= k < 16384 */

typedef struct problem {
    lab_io io;             /* first: the lab_io hooks take the problem as its lab_io */
    int task;              /* TASK_MEMORY or TASK_ARITH */
    int n;                 /* elements */
    float a;               /* memory: the scale factor */
    int blocks, threads;   /* the fixed launch: one block per SM, 1/8 of its thread slots */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* Each task's in and out. memory: in uniform in [-1, 1) from stream 1 of the seed, out one
 * rounded multiply, bit for bit. arith: in 1 + (k - 8192) 2^-23 for k uniform in [0, 16384)
 * (drawn here on the host from stream 2; on the device from stream 3, in the same steps), out
 * within the bound below of the double-precision chain, and the same bits from any two right
 * implementations (the contract's fmaf chain has one right answer). Bound: y0 = x > 0, x > 0
 * and ILP_C > 0, so every term of every step is positive and no rounding error is amplified by
 * cancellation: each of the K = ILP_STEPS steps adds at most u = 2^-24 to the relative error
 * when fused, 2u unfused. (2K + 8) u, about 1.2e-4, admits both. One step too few or too many
 * moves every result with x >= 1 (half the inputs) by 2.5e-4 or more, so a wrong step count
 * cannot pass. */
enum { IN, OUT };
static const lab_io_buf bufs_memory[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};
static const lab_io_buf bufs_arith[] = {
    LAB_IO_IN_OWN(3, 1.f - (float)(ARITH_GRID / 2) * 0x1p-23f,
                  1.f + (float)(ARITH_GRID / 2) * 0x1p-23f, 0x1p-23f),
    LAB_IO_OUT_CLOSE_AGREE((2.0 * ILP_STEPS + 8.0) * 0x1p-24, 0.0)};

/* ---------------------------------------------------------------------------------------- */
/* CPU reference and inputs                                                                   */

/* The arith task's input k of the grid, x = 1 + (k - 8192) * 2^-23 (exact in float). */
static double arith_x(int k)
{
    return 1.0 + (k - ARITH_GRID / 2) * ldexp(1.0, -23);
}

static float arith_input(int k)
{
    return (float)arith_x(k);
}

/* The contract's chain in double for input k. */
static double chain_cpu(int k)
{
    const double x = arith_x(k);
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
    lab_io_size(&p->io, &lab_ilp, task, size);
    p->task = task;
    p->n = (int)size[0];
    p->blocks = d->sm_count;
    p->threads = (d->max_threads_per_sm / 8) / 32 * 32;
    if (p->threads < 32)
        p->threads = 32;
    const size_t count[] = {(size_t)p->n, (size_t)p->n};
    const int made = lab_io_create(&p->io, task == TASK_MEMORY ? bufs_memory : bufs_arith, 2,
                                   count, seed);
    if (task == TASK_MEMORY)
        p->a = draw_scale(seed);
    if (!made) /* a speed check's problem: refresh() makes the inputs */
        return p;
    float *in = lab_io_in(&p->io, IN);
    if (task == TASK_MEMORY) {
        float *exact = lab_io_expected_f(&p->io, OUT);
        /* The product of two floats is exact in double; rounding it to float once is what
         * the GPU's single multiply does. */
        for (int i = 0; i < p->n; i++)
            exact[i] = (float)((double)in[i] * p->a);
    } else {
        /* 16384 distinct inputs near 1, where x^ILP_STEPS stays between 1/e and e: every
         * step matters to the result. The CPU chain runs once per distinct input. */
        lab_io_draw_memo(in, lab_io_expected_d(&p->io, OUT), (size_t)p->n, seed, 2, ARITH_GRID,
                         arith_input, chain_cpu);
    }
    lab_io_upload(&p->io);
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

/* ---------------------------------------------------------------------------------------- */
/* Calls                                                                                      */

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) { /* memory only; arith's ceiling is computed (ceiling_ms) */
        lab_io_copy(&p->io, OUT, IN, s);
        return;
    }
    /* The shim records the launch, checks its shape and replays it (see the top). */
    if (p->task == TASK_MEMORY)
        harness_call(impl, s, LAB_ENTRY_ilp_memory, LAB_WIRE_ilp_memory, lab_io_dev(&p->io, OUT),
                     lab_io_dev(&p->io, IN), (double)p->a, p->n, p->blocks, p->threads);
    else
        harness_call(impl, s, LAB_ENTRY_ilp_arith, LAB_WIRE_ilp_arith, lab_io_dev(&p->io, OUT),
                     lab_io_dev(&p->io, IN), p->n, p->blocks, p->threads);
}

static void verify(void *vp, verify_result *v)
{
    lab_io_verify(&((problem *)vp)->io, 0, v); /* (the bound: see bufs_arith) */
    /* a launch of the wrong shape comes back from the shim (call_and_verify reports it) */
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
    return lab_io_hook_work(vp) / (device_fma_peak_gflops(d, clock_mhz) * 1e6);
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

/* Speed checks: new inputs on the device, drawn as create() draws them (lab_io_refresh). The
 * memory task's scale factor stays the one create() drew: it is an argument of the call, and
 * the shim replays its recorded launch only for the same arguments. A new factor every round
 * made every timed call a new recording, and each recording's device synchronisation and
 * output overwrite (half a gigabyte on an H200: 0.12 ms) were timed with the kernel, a third of
 * the reference's time. New inputs every round are what keep an output from being reused. */

const lab_info *const harness_lab = &lab_ilp;
const lab_task harness_tasks[] = {
    {.name = "ilp_memory", .unit = "GB/s", .ceiling = "cudaMemcpy D2D",
     .create = create_memory, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size_memory, .refresh = lab_io_hook_refresh,
     .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
    {.name = "ilp_arith", .unit = "GFLOP/s", .ceiling = "FP32 FMA peak",
     .create = create_arith, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size_arith, .ceiling_ms = ceiling_arith,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 2;
