/* problem.cu - lab 08's problem for the harness: inputs, calls, verification, sizes and the
 * ideal time. Implementations are called through the lab's shim (shim_untrusted.cu
 * in this folder), in their worker processes.
 *
 * out[item][lane] = sum over round < rounds of tail_sample(seeds[item], item, lane, round),
 * modulo 2^32 (grader/labs/08-tail/tail.h). Integer arithmetic, so the check is exact: the CPU
 * computes every result with the same function (on all its cores: the speed sizes are
 * 2.8 x 10^8 and 5.6 x 10^8 samples on an H200) and every bit must match.
 *
 * Sizes. The work is compute-bound and reads almost nothing (one seed per item), so the
 * "working set >= 4x L2" rule of the memory labs does not apply: what matters is the number
 * of blocks against one wave of the GPU. The speed sizes are `waves` full waves of the
 * skeleton's kernel plus `extra` blocks, with a wave = SMs x resident blocks per SM, asked of
 * the device for the kernel below (the same code as the skeleton's), never a constant.
 *
 * The ideal. Total work over the whole device's rate, measured in the same run: the skeleton's
 * kernel on exactly the full waves (every SM busy from start to end, no tail), timed, and
 * scaled by all items / full-wave items.
 *
 * Speed checks: device-only problems (no CPU answer); refresh() draws new seeds on the device
 * every round and the student's output is compared with the reference's bit for bit. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "tail.h"
#include "../lab_io.h"
#include "../common/stats.h"
#include "../common/timing.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

extern "C" const lab_info lab_tail; /* the table, table.c */
extern "C" int tail_item_kernel_wave(const device_info *d); /* table.c */

#define ILP 4

typedef struct problem {
    lab_io io;            /* first: the lab_io hooks take the problem as its lab_io */
    int items;            /* work items */
    int rounds;           /* samples per result */
    int full_items;       /* items in the full waves (speed cases), 0 for correctness cases */
    int wave;             /* blocks in one wave of item_kernel (speed cases) */
    const unsigned *h_seeds; /* the seeds' host copy (lab_io's) */
    unsigned *h_expected; /* CPU results, items x TAIL_LANES (lab_io's) */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* seeds: uniform 32-bit words, one per item (drawn here on the host from stream 1 of the seed,
 * on the device from the same stream); out: items x TAIL_LANES sums modulo 2^32, the same bits
 * in any order of the additions, compared exactly (a bad element shows as (item, lane)) */
enum { SEEDS, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN_U32(1), LAB_IO_OUT_U32};

/* ------------------------------------------------------------------------------------------ */
/* Kernels the grader runs itself                                                              */

/* The skeleton's kernel (labs/08-tail/tail.cu), kept here so the wave size and the ideal do
 * not depend on the student's file: one 1024-thread block per item. */
__global__ void __launch_bounds__(TAIL_LANES, 1)
item_kernel(unsigned *out, const unsigned *seeds, int rounds)
{
    const unsigned item = blockIdx.x, lane = threadIdx.x;
    const unsigned seed = seeds[item];
    unsigned acc = 0;
    int r = 0;
    for (; r + ILP <= rounds; r += ILP) {
#pragma unroll
        for (int k = 0; k < ILP; k++)
            acc += tail_sample(seed, item, lane, (unsigned)(r + k));
    }
    for (; r < rounds; r++)
        acc += tail_sample(seed, item, lane, (unsigned)r);
    out[(size_t)item * TAIL_LANES + lane] = acc;
}

/* Blocks of item_kernel in one wave of this GPU: the table's arithmetic (tail_item_kernel_wave,
 * table.c), which the unit tests run for every GPU profile. The CUDA runtime's own occupancy
 * of the compiled kernel should agree; a note says so when it does not (a compiler that
 * fits item_kernel in 32 registers would put two blocks on an SM of 2048 threads). */
static int item_kernel_wave(const device_info *d)
{
    const int wave = tail_item_kernel_wave(d);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, item_kernel, TAIL_LANES, 0));
    if (per_sm * d->sm_count != wave)
        fprintf(stderr,
                "note: lab tail: a wave of item_kernel should be %d blocks (table.c), the CUDA "
                "runtime's occupancy gives %d x %d SMs = %d\n",
                wave, per_sm, d->sm_count, per_sm * d->sm_count);
    return wave;
}

/* ------------------------------------------------------------------------------------------ */
/* The CPU reference: every result, on every core                                               */

static void expected_items(problem *p, int first, int last)
{
    for (int item = first; item < last; item++) {
        unsigned *row = p->h_expected + (size_t)item * TAIL_LANES;
        for (int lane = 0; lane < TAIL_LANES; lane++)
            row[lane] = 0;
        for (int r = 0; r < p->rounds; r++)
            for (int lane = 0; lane < TAIL_LANES; lane++)
                row[lane] += tail_sample(p->h_seeds[item], (unsigned)item, (unsigned)lane,
                                         (unsigned)r);
    }
}

static void compute_expected(problem *p)
{
    unsigned cores = std::thread::hardware_concurrency();
    if (cores < 1)
        cores = 1;
    if (cores > 64)
        cores = 64;
    if ((long long)p->items * p->rounds < 4096 || cores == 1) {
        expected_items(p, 0, p->items);
        return;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < cores; t++) {
        const int first = (int)((long long)p->items * t / cores);
        const int last = (int)((long long)p->items * (t + 1) / cores);
        pool.emplace_back(expected_items, p, first, last);
    }
    for (auto &th : pool)
        th.join();
}

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                    */

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_tail, 0, size);
    p->items = (int)size[0];
    p->rounds = (int)size[1];
    p->full_items = (int)size[2];
    const size_t count[] = {(size_t)p->items, (size_t)p->items * TAIL_LANES};
    if (!lab_io_create(&p->io, bufs, 2, count, seed))
        return p; /* a speed check's problem: refresh() makes the seeds */
    unsigned *seeds = lab_io_in_u32(&p->io, SEEDS);
    p->h_seeds = seeds;
    p->h_expected = lab_io_expected_u32(&p->io, OUT);
    rng r;
    rng_seed(&r, rng_derive(seed, 1));
    for (int i = 0; i < p->items; i++)
        seeds[i] = (unsigned)(rng_u64(&r) >> 32);
    compute_expected(p);
    lab_io_upload(&p->io);
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) /* the ceiling is the ceiling_ms hook, never a call */
        fatal("lab tail: no implementation %d", impl);
    harness_call(impl, s, LAB_ENTRY_tail, LAB_WIRE_tail, lab_io_dev(&p->io, OUT),
                 lab_io_dev(&p->io, SEEDS), p->items, p->rounds);
}

/* Exact comparison of unsigned results; the counterexample shows (item, lane) and integers. */
static void verify(void *vp, verify_result *v)
{
    lab_io_verify(&((problem *)vp)->io, TAIL_LANES, v); /* (row, col) = (item, lane) */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    if (p->full_items > 0)
        snprintf(buf, len, "%d items=%dx%d+%d, %d rounds", p->items, p->full_items / p->wave,
                 p->wave, p->items - p->full_items, p->rounds);
    else
        snprintf(buf, len, "%d item%s x %d round%s", p->items, p->items == 1 ? "" : "s",
                 p->rounds, p->rounds == 1 ? "" : "s");
}

/* size arrives holding the table row's {waves, extra}; it leaves as {items, rounds, full}. */
static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 400);
    size[1] = rng_range(r, 1, 40);
    size[2] = 0;
}

/* The ideal time of this problem: the full waves alone, timed (median of 5 after a warm-up),
 * scaled to all the items. */
static void full_waves_prepare(void *ctx, int variant, cudaStream_t s)
{
    (void)variant;
    lab_io_prepare(&((problem *)ctx)->io, s);
}

static void full_waves_run(void *ctx, int variant, cudaStream_t s)
{
    (void)variant;
    problem *p = (problem *)ctx;
    item_kernel<<<p->full_items, TAIL_LANES, 0, s>>>((unsigned *)lab_io_dev(&p->io, OUT),
                                                     (const unsigned *)lab_io_dev(&p->io, SEEDS),
                                                     p->rounds);
    CUDA_CHECK_LAUNCH();
}

static double ideal_ms(void *vp, const device_info *d, double clock_mhz, cudaStream_t s)
{
    (void)d;
    (void)clock_mhz;
    problem *p = (problem *)vp;
    if (p->full_items <= 0)
        return 0.0;
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    double ms[6], host;
    for (int i = 0; i < 6; i++) /* sample 0 is the warm-up */
        time_one(full_waves_prepare, full_waves_run, p, 0, NULL, s, e0, e1, &ms[i], &host);
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return stats_median(ms + 1, 5) * p->items / p->full_items;
}

/* The wave of the problem, for describe(): recomputed here so create() needs no device. */
static void *create_timed(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    problem *p = (problem *)create(size, seed, d);
    if (p->full_items > 0)
        p->wave = item_kernel_wave(d);
    return p;
}

/* Speed checks: new seeds on the device, uniform 32-bit words as create() draws them
 * (lab_io_refresh); the outputs compared bit for bit (lab_io_outputs). */

const lab_info *const harness_lab = &lab_tail;
const lab_task harness_tasks[] = {
    {.name = "tail", .unit = "Gsample/s", .ceiling = "ideal (full-wave rate)",
     .create = create_timed, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size, .ceiling_ms = ideal_ms, .refresh = lab_io_hook_refresh,
     .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
    {.name = "tail 2 waves", .unit = "Gsample/s", .ceiling = "ideal (full-wave rate)",
     .create = create_timed, .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare,
     .run = run, .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size, .ceiling_ms = ideal_ms, .refresh = lab_io_hook_refresh,
     .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 2;
