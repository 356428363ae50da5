/* table.c - lab 08's checks, as data (see lab.h).
 *
 * Correctness sizes are {items, rounds}. Speed sizes are {full waves, extra blocks}: the harness
 * turns them into items = waves x (SMs x blocks per SM) + extra for the GPU in hand (see
 * speed_size in problem.cu). Two speed rows, two tasks (the same entry point): `make bench`
 * keys its rows by task, and the second size shows the fix holds past one wave. */
#include "lab.h"
#include "../../../common/sizing.h"
#define CONTRACT_CONSTANTS_ONLY
#include "tail.h"

/* Under the CPU emulator (last column: the size it runs instead) "several waves" is 120 items:
 * on its 4 SMs that is still 15 waves or more of one block an item, at an eighth of the blocks
 * (an item cut into 32 blocks of 1,024 threads: 3,840 blocks rather than 32,000). */
static const lab_check checks[] = {
    /* name                                          kind           task size {items, rounds} points */
    {"1 item x 1 round",                             CHECK_VISIBLE, 0,   {1, 1},          0},
    {"1 item x 7 rounds (not a multiple of 4)",      CHECK_VISIBLE, 0,   {1, 7},          0},
    {"31 items x 5 rounds",                          CHECK_VISIBLE, 0,   {31, 5},         0},
    {"33 items x 9 rounds",                          CHECK_VISIBLE, 0,   {33, 9},         0},
    {"131 items (prime) x 3 rounds",                 CHECK_VISIBLE, 0,   {131, 3},        0},
    {"300 items x 17 rounds: more than one wave",    CHECK_VISIBLE, 0,   {300, 17},       0},
    {"1000 items x 2 rounds: several waves",         CHECK_VISIBLE, 0,   {1000, 2},       0, {120, 2}},
    {"hidden size 1",                                CHECK_HIDDEN,  0,   {0},             0},
    {"hidden size 2",                                CHECK_HIDDEN,  0,   {0},             0},
    {"hidden size 3",                                CHECK_HIDDEN,  0,   {0},             0},
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
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

/* Registers a thread of the grader's item_kernel (problem.cu, the skeleton's kernel) may use:
 * __launch_bounds__(TAIL_LANES, 1) allows 64, and ptxas uses 42 (sm_75) to 60 (sm_100). Any
 * count over 32 leaves room for one 1024-thread block per SM on every GPU (65536 registers);
 * the harness checks its figure against the CUDA runtime's occupancy on the GPU in hand. */
#define TAIL_ITEM_KERNEL_REGS 64

/* Rounds per item in the timed cases: about a millisecond per wave on an H200, far above
 * launch overhead. */
#define TAIL_SPEED_ROUNDS 2048

/* Blocks of the grader's item_kernel in one wave: SMs x resident blocks per SM. */
int tail_item_kernel_wave(const device_info *d)
{
    const int per_sm = device_blocks_per_sm(d, TAIL_LANES, TAIL_ITEM_KERNEL_REGS, 0);
    return d->sm_count * (per_sm > 0 ? per_sm : 1);
}

/* size arrives holding the table row's {waves, extra}; it leaves as {items, rounds, full}. */
static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    (void)task;
    const long long waves = size[0], extra = size[1];
    /* The emulator too: its waves are what make explain shows (4 SMs unless CUDA_EMU_SMS). */
    const long long wave = tail_item_kernel_wave(d);
    size[0] = waves * wave + extra;
    size[1] = d->emulated ? 8 : TAIL_SPEED_ROUNDS;
    size[2] = waves * wave;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double items = (double)size[0];
    f->work = items * TAIL_LANES * size[1]; /* samples */
    f->output_bytes = items * TAIL_LANES * sizeof(unsigned);
    f->device_bytes = items * sizeof(unsigned) + f->output_bytes; /* seeds, results */
    f->working_set = f->device_bytes;
    f->l2_multiple = 0; /* sized in waves of blocks: compute-bound, the L2 does not matter */
}

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
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): the same waves, half the rounds an item */
    .count_scale = {0, 0.5},
    .footprint = footprint,
};
