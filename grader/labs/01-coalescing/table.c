/* table.c - lab 01's checks, as data (see lab.h). */
#include "lab.h"
#include "../../../common/sizing.h"

static const lab_check checks[] = {
    /* name                                       kind           task  size {rows, cols}  points */
    {"1 x 1",                                     CHECK_VISIBLE, 0,    {1, 1},            0},
    {"1 x 33: one row, a warp and one",           CHECK_VISIBLE, 0,    {1, 33},           0},
    {"31 x 1: one column",                        CHECK_VISIBLE, 0,    {31, 1},           0},
    {"33 x 33",                                   CHECK_VISIBLE, 0,    {33, 33},          0},
    {"7 x 1021: prime row length",                CHECK_VISIBLE, 0,    {7, 1021},         0},
    {"1000 x 37: many short rows",                CHECK_VISIBLE, 0,    {1000, 37},        0},
    {"257 x 4099: more than one wave of blocks",  CHECK_VISIBLE, 0,    {257, 4099},       0},
    {"hidden size 1",                             CHECK_HIDDEN,  0,    {0},               0},
    {"hidden size 2",                             CHECK_HIDDEN,  0,    {0},               0},
    {"hidden size 3",                             CHECK_HIDDEN,  0,    {0},               0},
    {"speed: device-sized matrix",                CHECK_SPEED,   0,    {0},               5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"coalescing", "float *out, const float *in, const float *scale, const float *bias, int rows, "
     "int cols, cudaStream_t stream",
     "ppppii"},
};
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* Each of in and out is 8x the L2 (so in + out is 16x): nothing survives in cache
     * between calls. An odd row length keeps rows misaligned, as real data often is. */
    (void)task;
    const long long cols = 8191;
    size_t bytes = sizing_speed_bytes(d, 8, 2);
    if (d->emulated)
        bytes = (size_t)1 << 20;
    size[0] = (long long)(bytes / (cols * sizeof(float)));
    size[1] = cols;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0] * size[1], rows = (double)size[0];
    f->work = 2.0 * n * sizeof(float) + 2.0 * rows * sizeof(float); /* read in, write out */
    f->device_bytes = f->work;         /* in, out, scale, bias */
    f->working_set = f->work;
    f->output_bytes = n * sizeof(float);
    f->l2_multiple = 8; /* in and out 8x each, less a partial row */
}

const lab_info lab_coalescing = {
    .number = "01",
    .name = "coalescing",
    .title = "Global-memory coalescing",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    .threshold = 0.50,
    .hint_correct = "Each output element must be in[r*cols+c]*scale[r]+bias[r]. Check your row/column "
                    "index arithmetic and the bounds test for sizes that are not multiples of the block.",
    .hint_speed = "Consecutive threads of a warp should touch consecutive addresses. Map threadIdx.x to "
                  "the column (the contiguous dimension), not the row; then try float4 (16-byte) accesses.",
    .timeout_s = 60,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 0.7% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half the rows (the row length, odd, kept) */
    .count_scale = {0.5},
    .footprint = footprint,
};
