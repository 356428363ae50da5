/* table.c - lab 03's checks, as data (see lab.h). */
#include "lab.h"
#include "../../../common/sizing.h"
#define CONTRACT_CONSTANTS_ONLY
#include "divergence.h"

static const lab_check checks[] = {
    /* name                                          kind           task  size {n}    points */
    {"n = 1",                                        CHECK_VISIBLE, 0,    {1},        0},
    {"n = 31: less than a warp",                     CHECK_VISIBLE, 0,    {31},       0},
    {"n = 33: a warp and one",                       CHECK_VISIBLE, 0,    {33},       0},
    {"n = 4099: prime, not a multiple of a block",   CHECK_VISIBLE, 0,    {4099},     0},
    {"n = 65537: 32 tiles of 2048 and one element",  CHECK_VISIBLE, 0,    {65537},    0},
    {"n = 3000017: more than one wave of blocks",    CHECK_VISIBLE, 0,    {3000017},  0, {300007}},
    {"hidden size 1",                                CHECK_HIDDEN,  0,    {0},        0},
    {"hidden size 2",                                CHECK_HIDDEN,  0,    {0},        0},
    {"hidden size 3",                                CHECK_HIDDEN,  0,    {0},        0},
    {"speed: device-sized array, classes mixed",     CHECK_SPEED,   0,    {0},        5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"divergence", "float *out, const float *in, int n, cudaStream_t stream",
     "ppi"},
};
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* The chains dominate (960 FMAs per 8 bytes moved, on average), but the rule stands: in + out is
     * 4x the L2 (at least 256 MB), so the data of one call is not left in cache by the last.
     * An odd n leaves a partial tile and partial warps at the end. */
    (void)task;
    const size_t bytes = sizing_speed_bytes(d, 4, 1); /* in + out together */
    size[0] = (long long)(bytes / (2 * sizeof(float))) + 5;
    if (d->emulated)
        size[0] = 20011;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0];
    /* flops of the chains: the classes are equally common in the grader's inputs, so an
     * element runs the mean of the four step counts (960) */
    const double mean_steps = (DIVERGENCE_STEPS_0 + DIVERGENCE_STEPS_1 + DIVERGENCE_STEPS_2 +
                               DIVERGENCE_STEPS_3) / 4.0;
    f->work = 2.0 * mean_steps * n;
    f->device_bytes = 2.0 * n * sizeof(float);
    f->working_set = f->device_bytes;
    f->output_bytes = n * sizeof(float);
    f->l2_multiple = 4;
}

const lab_info lab_divergence = {
    .number = "03",
    .name = "divergence",
    .title = "Warp divergence",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* Pass mark: reference time / student time. By the step counts, a warp that mixes classes
     * runs 3840 steps (the skeleton's four loops) or 2048 (one loop with a count per lane:
     * rungs 1 and 2), a regrouped warp 960 on average. Measured on an H200 (the README's
     * "Measured on an H200"): the skeleton 0.28, rungs 1 and 2 0.37 and 0.36, rung 4 and the
     * reference 1.00 (make bench); the plainest regrouping (rung 3: a block sorts its own 256
     * elements, its blocks unbalanced) 0.77, and a lane-refill variant without
     * regrouping 0.63. The mark sits between: every branch-only form fails by about 0.18,
     * every honest cure of the idle lanes passes by 0.07 or more. */
    .threshold = 0.55,
    .hint_correct = "Each element needs its OWN class's chain: c = (int)in[i], f = in[i] - c, y = f, then "
                    "that class's K steps (DIVERGENCE_STEPS_0 ... DIVERGENCE_STEPS_3) of y = fmaf(y, m, b) "
                    "with its m and b, and out[i] = y. If you regroup elements, carry each one's index with "
                    "it, and do not drop the last partial group.",
    .hint_speed = "Your warps still mix classes, so each runs several chains one after the other, or one "
                  "loop until its longest lane's chain ends (2048 steps where the mean is 960). Regroup the "
                  "work so that all 32 lanes of a warp hold elements of one class (sort a block's tile by "
                  "class in shared memory, then hand out groups of 32) and each warp runs one chain.",
    .timeout_s = 90,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 1.3% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half the elements */
    .count_scale = {0.5},
    .footprint = footprint,
};
