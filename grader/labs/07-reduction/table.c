/* table.c - lab 07's checks, as data (see lab.h). */
#include "lab.h"
#include "../../../common/sizing.h"
#define CONTRACT_CONSTANTS_ONLY
#include "reduction.h"

/* Under the CPU emulator (last column: the size it runs instead) the large cases keep their
 * form at a quarter or less: 2^18 - 1 for 2^20 - 1; primes of 1024 and 2048 blocks of 256,
 * many waves of the emulated device's 4 SMs; hidden sizes at most twice the largest. */
static const lab_check checks[] = {
    /* name                                           kind           task  size {n}      points */
    {"n = 1",                                         CHECK_VISIBLE, 0,    {1},          0},
    {"n = 2",                                         CHECK_VISIBLE, 0,    {2},          0},
    {"n = 31: less than a warp",                      CHECK_VISIBLE, 0,    {31},         0},
    {"n = 33: a warp and one",                        CHECK_VISIBLE, 0,    {33},         0},
    {"n = 257: a block of 256 and one",               CHECK_VISIBLE, 0,    {257},        0},
    {"n = 65537: prime (2^16 + 1)",                   CHECK_VISIBLE, 0,    {65537},      0},
    {"n = 1048575: one less than a power of two",     CHECK_VISIBLE, 0,    {1048575},    0, {262143}},
    {"n = 16777259: prime, many waves of blocks",     CHECK_VISIBLE, 0,    {16777259},   0, {262147}},
    {"n = 100000007: prime, large",                   CHECK_VISIBLE, 0,    {100000007},  0, {524309}},
    {"hidden size 1",                                 CHECK_HIDDEN,  0,    {0},          0},
    {"hidden size 2",                                 CHECK_HIDDEN,  0,    {0},          0},
    {"hidden size 3",                                 CHECK_HIDDEN,  0,    {0},          0},
    {"speed: device-sized array (>= 2^28 floats)",    CHECK_SPEED,   0,    {0},          5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"reduction", "float *result, const float *in, long long n, float *scratch, "
     "cudaStream_t stream",
     "pplp"},
};

/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* At least 2^28 floats (1 GiB) and 8x the L2, so no call finds its input in cache; plus 3,
     * so the timed case has a ragged end like the visible ones. One call then takes about 250
     * microseconds on an H200, far above launch overhead. */
    (void)task;
    size_t bytes = (size_t)1 << 30;
    if (bytes < 8 * d->l2_bytes)
        bytes = 8 * d->l2_bytes;
    const size_t budget = sizing_memory_budget(d);
    if (bytes + bytes / 64 > budget) /* input plus scratch */
        bytes = budget / 65 * 64;
    if (d->emulated)
        bytes = (size_t)1 << 22;
    size[0] = (long long)(bytes / sizeof(float)) + 3;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0];
    f->work = n * sizeof(float); /* bytes read */
    f->device_bytes = (n + 1 + (double)reduction_scratch_floats(size[0])) * sizeof(float);
    f->working_set = f->work;
    f->output_bytes = sizeof(float);
    f->l2_multiple = 8;
}

const lab_info lab_reduction = {
    .number = "07",
    .name = "reduction",
    .title = "Parallel reduction",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* The point of the lab is to write the reduction: an object that calls cuBLAS, or holds
     * CUB's or Thrust's code (header-only: their template instances, kernel stubs and
     * constants are defined in the object, in namespaces cub:: and thrust::), is rejected at
     * build time (grader/make/vet.sh). Including a block-level primitive (cub::BlockReduce) leaves
     * CUB's namespace-scope constants behind, so it is rejected too, which is fine here: the
     * tree is the lesson. A kernel of the student's own called DeviceReduceKernel, or a
     * namespace thrust_like, is theirs. Tested with CUDA 13.0 (tests/vet/run.sh). */
    .forbid_libraries = "cub thrust cublas",
    .forbid_about = "writing the sum yourself",
    /* Reference time / student time. Measured on an H200 (labs/07-reduction/README.md): the
     * skeleton runs at 0.09 of the reference, Harris's steps 2-6 (one launch per tree level)
     * at 0.15-0.55, the grid-stride step 7 at 0.97: the mark sits between the last tree-per-
     * 512-elements kernel and the first that keeps many loads in flight per thread. */
    .threshold = 0.75,
    .hint_correct = "The result must equal the sum of all n inputs within the bound in the README (it grows "
                    "with log2(n) and the sum of |x|). Check the bounds test for the last block (n is rarely a "
                    "multiple of your block or of 4), that every block's partial is added exactly once, and a "
                    "__syncthreads() between tree levels that read what another thread wrote.",
    .hint_speed = "A sum is limited by how fast DRAM can be read. Keep many loads in flight: a grid of a few "
                  "blocks per SM with a grid-stride loop, several independent float4 loads per thread before "
                  "the first add, sequential addressing and warp shuffles for the tree, and one pass (a "
                  "counter in scratch finds the last block) instead of one launch per tree level.",
    .timeout_s = 120,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 0.3% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half the elements */
    .count_scale = {0.5},
    .footprint = footprint,
};
