/* table.c - lab 04's checks, as data (see lab.h). Task 0: ilp_memory; task 1: ilp_arith. */
#include "lab.h"
#include "../../../common/sizing.h"
#define CONTRACT_CONSTANTS_ONLY
#include "ilp.h"

static const lab_check checks[] = {
    /* name                                             kind           task  size {n}   points */
    {"memory n = 1",                                    CHECK_VISIBLE, 0,    {1},       0},
    {"memory n = 3: less than one float4",              CHECK_VISIBLE, 0,    {3},       0},
    {"memory n = 33: a warp and one",                   CHECK_VISIBLE, 0,    {33},      0},
    {"memory n = 4099: prime",                          CHECK_VISIBLE, 0,    {4099},    0},
    {"memory n = 3000017: several passes of the grid",  CHECK_VISIBLE, 0,    {3000017}, 0},
    {"arith n = 1",                                     CHECK_VISIBLE, 1,    {1},       0},
    {"arith n = 31: less than a warp",                  CHECK_VISIBLE, 1,    {31},      0},
    {"arith n = 33: a warp and one",                    CHECK_VISIBLE, 1,    {33},      0},
    {"arith n = 4099: prime",                           CHECK_VISIBLE, 1,    {4099},    0},
    {"arith n = 300007: several passes of the grid",    CHECK_VISIBLE, 1,    {300007},  0},
    {"memory hidden size 1",                            CHECK_HIDDEN,  0,    {0},       0},
    {"memory hidden size 2",                            CHECK_HIDDEN,  0,    {0},       0},
    {"arith hidden size 1",                             CHECK_HIDDEN,  1,    {0},       0},
    {"arith hidden size 2",                             CHECK_HIDDEN,  1,    {0},       0},
    {"speed: memory, device-sized array",               CHECK_SPEED,   0,    {0},       5},
    {"speed: arith, device-sized array",                CHECK_SPEED,   1,    {0},       5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"ilp_memory", "float *out, const float *in, float a, int n, int blocks, int threads, "
     "cudaStream_t stream",
     "ppfiii"},
    {"ilp_arith", "float *out, const float *in, int n, int blocks, int threads, "
     "cudaStream_t stream",
     "ppiii"},
};
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    if (task == 0) {
        /* Each of in and out is 8x the L2 (at least 256 MB): nothing survives in cache
         * between calls. n % 4 == 1 leaves a scalar tail. */
        const size_t bytes = sizing_speed_bytes(d, 8, 2);
        size[0] = (long long)(bytes / sizeof(float)) - 3;
        if (d->emulated)
            size[0] = 100003;
    } else {
        /* Compute-bound (2048 flops per 8 bytes), but in + out is still 4x the L2 (at least
         * 256 MB), and each call takes about a millisecond on an H200. */
        const size_t bytes = sizing_speed_bytes(d, 4, 1); /* in + out together */
        size[0] = (long long)(bytes / (2 * sizeof(float))) + 3;
        if (d->emulated)
            size[0] = 4099;
    }
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    const double n = (double)size[0];
    f->device_bytes = 2.0 * n * sizeof(float);
    f->working_set = f->device_bytes;
    f->output_bytes = n * sizeof(float);
    if (task == 0) {
        f->work = 2.0 * n * sizeof(float); /* bytes read + written */
        f->l2_multiple = 8;                /* in and out 8x each */
    } else {
        f->work = 2.0 * ILP_STEPS * n; /* flops of the chains */
        f->l2_multiple = 4;
    }
}

const lab_info lab_ilp = {
    .number = "04",
    .name = "ilp",
    .title = "ILP vs TLP: more work per thread at low occupancy",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* Pass mark: reference time / student time, for both speed checks. From the H200 bench
     * (labs/04-ilp/README.md), relative to the reference: skeletons 0.16 (memory) and 0.44
     * (arith); one or two float4 in flight per thread 0.64, four 0.77, sixteen 0.86; one
     * chain per thread 0.43, two 0.81. So one or two loads in flight fail and four pass, one
     * chain fails and two pass, each at least 0.06 from the mark, and the skeletons are far
     * below. */
    .threshold = 0.70,
    .hint_correct = "ilp_memory: out[i] = in[i] * a for every i < n, including the last n % 4 elements. "
                    "ilp_arith: y = x, then ILP_STEPS times y = fmaf(y, x, ILP_C), for every element. Launch "
                    "exactly one kernel <<<blocks, threads, 0, stream>>> with the blocks and threads you are "
                    "given: the grader rejects any other launch (see the check's message).",
    .hint_speed = "At this fixed, low occupancy each thread must keep more independent work in flight. "
                  "Memory: issue several float4 loads into registers before using the first (Little's law: "
                  "bytes in flight = bandwidth x latency). Arith: advance 4 independent elements' chains "
                  "side by side, so the scheduler has an FMA to issue every cycle.",
    .timeout_s = 120,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 0.8% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half the elements, in either task */
    .count_scale = {0.5},
    .footprint = footprint,
};
