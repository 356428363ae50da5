/* harness.h - how a lab plugs its problem into the grader's trusted harness.
 *
 * A lab's harness is one executable: harness.cu (owns main, the device, streams, timing), the
 * lab's table (grader/labs/NN-name/table.c) and its problem code (grader/labs/NN-name/problem.cu,
 * which implements the lab_task hooks below). The student's object and the reference's run
 * in workers the harness starts, each behind the lab's shim (shim_untrusted.cu). The hooks
 * never decide a verdict: they create inputs, call an implementation, and report what they
 * compared.
 *
 * Implementations a hook's `impl` argument names: */
#ifndef GRADER_HARNESS_H
#define GRADER_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "../../common/compare.h"
#include "../../common/device.h"
#include "../../common/devcheck.h"
#include "../../common/rng.h"
#include "../../common/sizing.h"
#include "../lab.h"

#define IMPL_STUDENT 0   /* the student's file (or the skeleton, untouched) */
#define IMPL_REFERENCE 1 /* the reference (solutions/, or a kit's prebuilt object) behind the
                            lab's shim in reference.so, in a worker of its own like the student's */
#define IMPL_CEILING 2   /* the hardware's best case for this traffic (bench, and the grade's
                            "fraction of ceiling"): cudaMemcpy, CUB, cuBLAS, ... */
#define IMPL_EXTRA 3     /* IMPL_EXTRA + k: the lab's k-th extra bench variant (ladder steps) */

#define IMPL_NULL (-1)     /* no implementation: an empty call through the reference's path */

/* An output of a call, for comparing two implementations on the device (speed checks):
 * bit for bit when rel == abs == 0, otherwise |a - b| <= rel * max(|a|, |b|) + abs. */
struct dbuf;
typedef struct lab_output {
    void *data;    /* device pointer */
    size_t n;      /* elements (4 bytes each); 0: not compared (a buffer listed for its guards) */
    dev_elem type; /* DEV_F32 or DEV_U32 */
    double rel;    /* relative bound (0: exact) */
    double abs;    /* absolute bound (0: exact) */
    const struct dbuf *buf; /* if not NULL: its guard zones must be intact after each call */
} lab_output;

/* An input a call must leave unchanged. */
typedef struct lab_input {
    const void *data; /* device (or shared host) pointer */
    size_t bytes;     /* a multiple of 4 */
    const void *source; /* NULL, or device memory that holds the same bytes as `data` when
                           refresh() has returned (the copy `data` was made from): the round's
                           first hash reads it in data's place, on the device, where `data`
                           is shared host memory that the device reads over the host link.
                           The hash after the student's call reads `data` itself. */
} lab_input;

/* What a task's verify hook found. The harness turns it into a `correct` record; the driver
 * decides. Fields are only meaningful as their comments say. */
typedef struct verify_result {
    compare_report out;  /* comparison of the whole output against the CPU reference */
    size_t cols;         /* row length for (row, col) in messages; 0 for a flat index */
    int guard_ok;        /* 1 if the guard zones around every output are intact */
    long long guard_at;  /* first clobbered byte relative to the output start; if !guard_ok */
    int input_ok;        /* 1 if every input is bit-for-bit unchanged */
    size_t input_at;     /* first changed input byte; if !input_ok */
    char problem[256];   /* anything else wrong ("a stream was not destroyed"), "" if none */
} verify_result;

typedef struct lab_task {
    const char *name;     /* entry point or part: "coalescing", "ilp_memory" */
    const char *unit;     /* rate unit of work(): "GB/s" or "GFLOP/s" */
    const char *ceiling;  /* what IMPL_CEILING runs, for the report: "cudaMemcpy D2D" */
    int host_clock;       /* 1: time with the host clock (the student makes own streams) */
    const char *const *extra; /* names of IMPL_EXTRA + k variants for make bench */
    int n_extra;              /* how many */

    /* Allocate inputs and outputs for `size`, fill inputs from `seed`, compute the CPU
     * reference. Returns the lab's private problem state. */
    void *(*create)(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d);
    void (*destroy)(void *p);
    /* Untimed, before every call: poison outputs, reset whatever the call consumes. (An output
     * that each implementation writes in an array of its own, which no other is handed, needs no
     * poison in a speed problem, whose inputs are new every round: lab 05's host arrays.) */
    void (*prepare)(void *p, int impl, cudaStream_t s);
    /* One call of implementation `impl` on stream s (asynchronous is fine). */
    void (*run)(void *p, int impl, cudaStream_t s);
    /* Host side, after the device is synchronised: compare the output of the last call. */
    void (*verify)(void *p, verify_result *v);
    /* Bytes (GB/s labs) or flops (GFLOP/s labs) one call must move or compute. */
    double (*work)(const void *p);
    /* Human-readable size, e.g. "rows=33 cols=65". */
    void (*describe)(const void *p, char *buf, size_t len);
    /* (The timed problem's size is the table's: lab_info.speed_size, lab.h.) */
    /* A hidden correctness size drawn from r (awkward sizes likely). */
    void (*hidden_size)(rng *r, long long size[LAB_MAX_DIMS]);
    /* Optional. The ceiling's time in ms for this problem when it is not one timed call of
     * IMPL_CEILING: computed (work over the FMA peak at the measured clock), or assembled
     * from several measurements the hook makes itself (time_one in common/timing.h). NULL:
     * the harness times IMPL_CEILING. */
    double (*ceiling_ms)(void *p, const device_info *d, double clock_mhz, cudaStream_t s);
    /* Optional, with ceiling_ms NULL. The ceiling's time from the median of IMPL_CEILING's
     * timed calls, where that call is its busiest part and the rest is arithmetic: lab 05's
     * ideal pipeline times both copy directions at once side by side with the implementations,
     * every round, and adds the pipeline's fill and drain. NULL: the median itself. */
    double (*ceiling_of_run)(void *p, const device_info *d, double run_ms);
    /* Speed checks. The problem was made with harness_device_only_mode() on (no host copies, no
     * CPU answer). refresh: new inputs in place, on the device, from `seed` (every timed
     * round gets fresh ones). outputs: what a call writes and the bound for comparing the
     * student's against the reference's (may launch work on s, e.g. to size a bound).
     * inputs: what a call must not change. Both return how many they filled (<= max). */
    void (*refresh)(void *p, uint64_t seed, cudaStream_t s);
    int (*outputs)(void *p, lab_output *out, int max, cudaStream_t s);
    int (*inputs)(void *p, lab_input *in, int max);
    /* Optional. Called once when the harness starts, with a speed check's size (a GPU only):
     * asks for the host memory its problem will take (harness_host_reserve), so that pinning
     * it overlaps the checks before. NULL: nothing made ahead. */
    void (*reserve)(const long long size[LAB_MAX_DIMS], const device_info *d);
} lab_task;

/* Defined by each lab's grader/labs/NN-name/problem.cu. */
#ifdef __cplusplus
extern "C" {
#endif
extern const lab_info *const harness_lab;
extern const lab_task harness_tasks[];
extern const int harness_n_tasks;

/* Helpers for hooks. */

/* Threads for a lab's CPU answers (parallel_for, common/parallel.h): every core this harness
 * may use on a GPU's machine; one under the CPU emulator, where a lab's host code is the
 * emulator's instrumented code and runs on the harness's own thread. */
#if defined(CUDA_EMU)
#define HARNESS_CPU_THREADS 1
#else
#define HARNESS_CPU_THREADS 0
#endif

/* Non-zero while the harness creates a speed check's problems: create() allocates and fills
 * device buffers only (refresh() makes the inputs), no host copies, no CPU answer. Its flag
 * is harness.cu's own; harness_set_device_only(1) before those create() calls, (0) after. */
int harness_device_only_mode(void);
void harness_set_device_only(int on);

/* Call entry point `entry` (its index in the lab's shim) of implementation `impl` on stream
 * s, with arguments as fmt says: 'p' a buffer the harness allocated (dbuf data, or host
 * memory from harness_host_alloc), 'i' int, 'l' long long, 'z' size_t, 'f' float or
 * double. The call runs in the implementation's worker process (the stream is then the
 * worker's; the harness times the whole call from outside) or, where the machine cannot
 * isolate, here. Asynchronous: the caller synchronizes. */
void harness_call(int impl, cudaStream_t s, int entry, const char *fmt, ...);
/* A rule the shim saw broken during impl's last call ("3 streams were not destroyed"); the
 * lab's verify copies it into verify_result.problem. "" if none since harness_clear_problem. */
const char *harness_problem(int impl);
void harness_clear_problem(int impl);
void harness_note_problem(int impl, const char *problem);
/* Pinned host memory that a worker can be given (lab 05's host arrays). */
void *harness_host_alloc(size_t bytes);
void harness_host_free(void *p);
/* That memory asked for ahead of a harness_host_alloc of exactly `bytes` (a task's reserve
 * hook): what a lab's hooks ask for is made together, the arrays' pages in turn, so that no
 * array copies at another rate than the others for where its pages lie. */
void harness_host_reserve(size_t bytes);
/* 1: the device buffers made from now until 0 are never handed to a call (lab_io's sources):
 * each is the harness's own memory, in no region a worker maps (worker_regions_trusted.cu). */
void harness_device_private(int on);

/* Compare a float output held in `out` (device, guarded) with host `expected` bit for bit,
 * filling v->out, v->guard_*. `got` is host scratch of n floats. */
struct dbuf;
void harness_check_exact(const struct dbuf *out, const float *expected, size_t n, float *got,
                         verify_result *v);
/* Same with the relative rule of compare_close_f32. */
void harness_check_close(const struct dbuf *out, const double *expected, const double *scale,
                         size_t n, double tol, double abs_floor, float *got, verify_result *v);
/* Record in v whether an input buffer still equals its host copy. */
void harness_check_input(const struct dbuf *in, const void *host, size_t bytes,
                         verify_result *v);


#ifdef __cplusplus
}
#endif
#endif
