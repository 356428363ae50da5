/* table.c - lab 06's checks, as data (see lab.h). Sizes are {rows, cols} of the input. */
#include "lab.h"
#include "../../../common/sizing.h"

static const lab_check checks[] = {
    /* name                                            kind           task  size {rows, cols}  points */
    {"1 x 1",                                          CHECK_VISIBLE, 0,    {1, 1},            0},
    {"1 x 33: one row, a warp and one",                CHECK_VISIBLE, 0,    {1, 33},           0},
    {"31 x 1: one column",                             CHECK_VISIBLE, 0,    {31, 1},           0},
    {"33 x 31",                                        CHECK_VISIBLE, 0,    {33, 31},          0},
    {"7 x 1021: prime row length",                     CHECK_VISIBLE, 0,    {7, 1021},         0},
    {"100 x 68: multiples of 4, not of 32",            CHECK_VISIBLE, 0,    {100, 68},         0},
    {"1000 x 37: many short rows",                     CHECK_VISIBLE, 0,    {1000, 37},        0},
    {"2052 x 4100: more than one wave of tiles",       CHECK_VISIBLE, 0,    {2052, 4100},      0, {1028, 1030}},
    {"hidden size 1",                                  CHECK_HIDDEN,  0,    {0},               0},
    {"hidden size 2",                                  CHECK_HIDDEN,  0,    {0},               0},
    {"hidden size 3",                                  CHECK_HIDDEN,  0,    {0},               0},
    {"speed: device-sized square matrix",              CHECK_SPEED,   0,    {0},               5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"transpose", "float *out, const float *in, int rows, int cols, cudaStream_t stream",
     "ppii"},
};
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* A square matrix of at least 16x the L2 (16384 x 16384 on an H200's 60 MB), its side a
     * multiple of 1024, input and output within the harness's memory budget. */
    (void)task;
    long long side = 1024;
    while ((size_t)side * side * sizeof(float) < 16 * d->l2_bytes)
        side += 1024;
    while (side > 1024 && 2 * (size_t)side * side * sizeof(float) > sizing_memory_budget(d))
        side -= 1024;
    if (d->emulated)
        side = 256;
    size[0] = side;
    size[1] = side;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0] * size[1];
    f->work = 2.0 * n * sizeof(float); /* each element read once and written once */
    f->device_bytes = f->work;
    f->working_set = f->work;
    f->output_bytes = n * sizeof(float);
    f->l2_multiple = 32; /* the input alone 16x */
}

const lab_info lab_transpose = {
    .number = "06",
    .name = "transpose",
    .title = "Matrix transpose",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    .threshold = 0.70,
    .hint_correct = "out[c * rows + r] must equal in[r * cols + c]: out has cols rows of length rows. Check "
                    "which index is the row on each side, and the bounds tests of partial tiles (rows and "
                    "cols need not be multiples of your tile).",
    .hint_speed = "A warp should read whole 128-byte lines of the input AND write whole lines of the output: "
                  "stage a tile in shared memory, pad it ([32][33]) so its columns are conflict-free, then "
                  "move more bytes per thread (several elements, 16-byte accesses).",
    .timeout_s = 90,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 1.4% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): a square of half the side */
    .count_scale = {0.5, 0.5},
    .footprint = footprint,
};
