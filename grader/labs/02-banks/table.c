/* table.c - lab 02's checks, as data (see lab.h). Sizes are {steps, series}. */
#include "lab.h"
#include "../../../common/sizing.h"

static const lab_check checks[] = {
    /* name                                          kind           task  size {steps, series}  points */
    {"1 x 1: one step of one series",                CHECK_VISIBLE, 0,    {1, 1},               0},
    {"1 x 33: one step, a warp and one",             CHECK_VISIBLE, 0,    {1, 33},              0},
    {"33 x 1: a window and one, one series",         CHECK_VISIBLE, 0,    {33, 1},              0},
    {"31 x 31: never a full window",                 CHECK_VISIBLE, 0,    {31, 31},             0},
    {"45 x 1021: prime series count",                CHECK_VISIBLE, 0,    {45, 1021},           0},
    {"257 x 129: 8 windows, a block and one",        CHECK_VISIBLE, 0,    {257, 129},           0},
    {"37 x 200003: more than one wave of blocks",    CHECK_VISIBLE, 0,    {37, 200003},         0, {37, 20011}},
    {"hidden size 1",                                CHECK_HIDDEN,  0,    {0},                  0},
    {"hidden size 2",                                CHECK_HIDDEN,  0,    {0},                  0},
    {"hidden size 3",                                CHECK_HIDDEN,  0,    {0},                  0},
    {"speed: device-sized batch of series",          CHECK_SPEED,   0,    {0},                  5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"rolling_max", "float *out, const float *in, int steps, int series, cudaStream_t stream",
     "ppii"},
};
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* The input is 8x the L2 (input plus output 16x): nothing survives in cache between calls.
     * 100 steps per series (not a multiple of the kernels' 8-step chunks) and as many series
     * as that takes: over a million on an H200, several waves of blocks, so the last partial
     * wave costs little. */
    (void)task;
    const long long steps = 100;
    size_t bytes = sizing_speed_bytes(d, 8, 2);
    if (d->emulated)
        bytes = (size_t)200 << 10;
    size[0] = steps;
    size[1] = (long long)(bytes / (steps * sizeof(float)));
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0] * size[1];
    f->work = 2.0 * n * sizeof(float); /* each input read once, each output written once */
    f->device_bytes = f->work;
    f->working_set = f->work;
    f->output_bytes = n * sizeof(float);
    f->l2_multiple = 8; /* input and output 8x each, less a partial series */
}

const lab_info lab_banks = {
    .number = "02",
    .name = "banks",
    .title = "Shared-memory bank conflicts",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    .threshold = 0.60,
    .hint_correct = "out[t*series + s] must be the largest of in[u*series + s] over the last 32 steps u <= t "
                    "(fewer at the start of a series). Check the ring-buffer slot (t % 32), that every slot "
                    "starts at -INFINITY, and the threads whose series s >= series.",
    .hint_speed = "The 32 threads of a warp read slot k of their windows at the same moment. With rows of "
                  "32 floats, those 32 words are 32 words apart: one bank, 32 passes. Pad each row by one "
                  "float (window[THREADS][33]), or store the window slot-major (window[32][THREADS]).",
    .timeout_s = 60,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 1.7% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half the series, each as long */
    .count_scale = {0, 0.5},
    .footprint = footprint,
};
