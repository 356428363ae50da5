/* table.c - lab 05's checks, as data (see lab.h).
 *
 * size = {n, k, calls}: n floats pushed through the device; k, the kernel's work per element
 * (fused multiply-adds; the speed check picks it from the device so that the kernel and each
 * copy take about as long); calls, how many times the student's function is called in a row
 * on the same data (each call verified, leaks counted over all of them). */
#include "lab.h"
#include "../../../common/sizing.h"

static const lab_check checks[] = {
    /* name                                          kind           task  size {n, k, calls}  points */
    {"n = 1",                                        CHECK_VISIBLE, 0,    {1, 3, 1},          0},
    {"n = 31",                                       CHECK_VISIBLE, 0,    {31, 5, 1},         0},
    {"n = 33",                                       CHECK_VISIBLE, 0,    {33, 7, 1},         0},
    {"n = 1000003: prime, several chunks",           CHECK_VISIBLE, 0,    {1000003, 9, 1},    0},
    {"n = 4194311: 16 MiB and a ragged end",         CHECK_VISIBLE, 0,    {4194311, 4, 1},    0, {1048583, 4, 1}},
    {"3 calls in a row, n = 2097169: nothing leaks", CHECK_VISIBLE, 0,    {2097169, 6, 3},    0, {524309, 6, 3}},
    {"hidden size 1",                                CHECK_HIDDEN,  0,    {0},                0},
    {"hidden size 2",                                CHECK_HIDDEN,  0,    {0},                0},
    {"hidden size 3",                                CHECK_HIDDEN,  0,    {0},                0},
    {"speed: device-sized array, balanced kernel",   CHECK_SPEED,   0,    {0},                5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"streams", "float *h_out, const float *h_in, float *d_out, float *d_in, size_t n, "
     "streams_kernel process",
     "ppppzip"},
};

/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

/* 1 GiB each way where the machine allows (host memory holds the pinned in and out arrays, and
 * for a correctness size also the input's copy and the expected output; device memory holds
 * in, out and the harness's copy of out to compare with), at least 4x the L2 when it can. Not
 * less: a call's time through the worker wanders by a few tenths of a millisecond whatever
 * its size (the process round trip, the host link), so a round's ratio spreads about twice
 * as wide at 512 MiB (about 4% on an H200) as at 1 GiB, and a half-size check needs about
 * four times the rounds for the same interval: longer in all. The count is a little short of
 * a power of two, so no chunk size divides it. */
static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    (void)task;
    /* Three pinned arrays of this size (the input, the student's output, the reference's):
     * together at most an eighth of the host's memory. */
    size_t bytes = (size_t)1 << 30;
    if (d->host_mem_bytes > 0 && bytes > d->host_mem_bytes / 24)
        bytes = d->host_mem_bytes / 24;
    if (3 * bytes + ((size_t)64 << 20) > sizing_memory_budget(d))
        bytes = (sizing_memory_budget(d) - ((size_t)64 << 20)) / 3;
    if (d->emulated) /* make explain: the reference cuts chunks of 1 MiB or more: 7 of these */
        bytes = (size_t)8 << 20;
    size[0] = (long long)(bytes / sizeof(float)) - 7;
    size[1] = 0; /* calibrate */
    size[2] = 1;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0];
    f->work = 2.0 * n * sizeof(float); /* bytes over the host link: in and back out */
    f->device_bytes = 2.0 * n * sizeof(float);
    f->working_set = f->device_bytes;
    f->output_bytes = n * sizeof(float);
    f->host_bytes = 3.0 * n * sizeof(float); /* pinned: the input and two outputs (problem.cu) */
    f->l2_multiple = 4; /* where the host's memory allows: a note says when it does not */
}

const lab_info lab_streams = {
    .number = "05",
    .name = "streams",
    .title = "Streams: overlap copies and compute",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* The driver API (a call to a cu* function of libcuda, or one resolved at run time with
     * cudaGetDriverEntryPoint or cuGetProcAddress) would make streams, copies and launches the
     * shim's counters cannot see (grader/labs/05-streams/shim_untrusted.cu). Helpers of the
     * student's own named cu* are theirs (grader/make/vet.sh judges uses, not names). */
    .forbid_libraries = "driver",
    .forbid_about = "overlapping copies and compute with the runtime's streams, which the grader counts",
    /* H200, one bench run: skeleton 0.39, reference 1.00; the ladder steps 4 chunks x 4
     * streams 0.75 and 64 chunks x 2 streams 0.73 fail, 16 chunks x 4 streams 0.96 passes
     * (8 chunks, by the same fill-and-drain arithmetic, about 0.85). */
    .threshold = 0.80,
    .hint_correct = "h_out[i] must be process() applied to h_in[i]: copy every element in, call process() on "
                    "each element exactly once, copy every element back, and destroy every stream and event "
                    "you create before returning. For chunks, check the offset and length of the last one "
                    "(n is rarely a multiple of the chunk).",
    .hint_speed = "One stream runs copy-in, kernel and copy-out one after another while two copy engines "
                  "and the SMs take turns idling. Split the array into chunks (8 or more) and issue each "
                  "chunk's copy-in, process() and copy-out on one of 3 or 4 streams of your own "
                  "(cudaMemcpyAsync from the pinned buffers), so chunk i+1 comes in while chunk i computes "
                  "and chunk i-1 goes out.",
    .timeout_s = 120,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    .host_link = 1, /* its timed copies cross the host link: one GPU at a time in a batch */
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 1.0%; 15% here, since this lab's timing
     * rides on PCIe and an honest port once ran 7% slower in one median on an H100. */
    .slowdown_noise = 0.15,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): twice the elements, not half: the reference cuts
     * chunks of 1 MiB or more, 15 there and 7 at the first size, where half would leave 3 and
     * a pipeline's fill and drain would weigh twice as much in either call */
    .count_scale = {2},
    .footprint = footprint,
};
