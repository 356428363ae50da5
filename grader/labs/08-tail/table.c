/* table.c - lab 08's checks, as data (see lab.h).
 *
 * Correctness sizes are {items, rounds}. Speed sizes are {full waves, extra blocks}: the runner
 * turns them into items = waves x (SMs x blocks per SM) + extra for the GPU in hand (see
 * speed_size in problem.cu). Two speed rows, two tasks (the same entry point): `make bench`
 * keys its rows by task, and the second size shows the fix holds past one wave. */
#include "lab.h"

static const lab_check checks[] = {
    /* name                                          kind           task size {items, rounds} points */
    {"1 item x 1 round",                             CHECK_VISIBLE, 0,   {1, 1},          1},
    {"1 item x 7 rounds (not a multiple of 4)",      CHECK_VISIBLE, 0,   {1, 7},          1},
    {"31 items x 5 rounds",                          CHECK_VISIBLE, 0,   {31, 5},         1},
    {"33 items x 9 rounds",                          CHECK_VISIBLE, 0,   {33, 9},         1},
    {"131 items (prime) x 3 rounds",                 CHECK_VISIBLE, 0,   {131, 3},        1},
    {"300 items x 17 rounds: more than one wave",    CHECK_VISIBLE, 0,   {300, 17},       1},
    {"1000 items x 2 rounds: several waves",         CHECK_VISIBLE, 0,   {1000, 2},       1},
    {"hidden size 1",                                CHECK_HIDDEN,  0,   {0},             1},
    {"hidden size 2",                                CHECK_HIDDEN,  0,   {0},             1},
    {"hidden size 3",                                CHECK_HIDDEN,  0,   {0},             1},
    /*                                                                   {waves, extra}       */
    {"speed: 1 full wave + 1 block",                 CHECK_SPEED,   0,   {1, 1},          5},
    {"speed: 2 full waves + 1 block (no points)",    CHECK_SPEED,   1,   {2, 1},          0},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"tail", "unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream",
     "ppii"},
};

const lab_info lab_tail = {
    .number = "08",
    .name = "tail",
    .title = "The tail effect",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* Reference time / student time. On an H200 (labs/08-tail/README.md) one block per item
     * runs at 0.52 of the reference with 1 wave + 1 block and 0.69 with 2 waves + 1; items
     * split into 4 blocks at 0.79 / 0.88, into 32 blocks at 0.93 / 0.94. The mark sits
     * between them: the tail must shrink to well under a quarter of a wave. */
    .threshold = 0.85,
    .hint_correct = "Every result must be the wrap-around sum of tail_sample(seeds[item], item, lane, round) "
                    "over round < rounds. If you split an item over several blocks, each piece must be added "
                    "exactly once (atomicAdd into an output you zeroed on the same stream), and the last piece "
                    "of an item must stop at `rounds`.",
    .hint_speed = "The last wave of blocks is nearly empty: one block per item makes the item the unit of "
                  "scheduling, so one extra item costs a whole wave. Make the unit smaller (split each item's "
                  "rounds over several blocks), or launch exactly one wave of persistent blocks (SMs x "
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor) and give each an equal share of all the work.",
    .timeout_s = 120,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 1.4% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
};
