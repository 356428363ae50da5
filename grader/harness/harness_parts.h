/* harness_parts.h - TRUSTED PROCESS (the harness): what the harness's files share, private to
 * them. harness.cu: main, the command line, one check at a time; harness_emit.cu: the hooks
 * the labs call, device memory, the records a check writes, one call verified, a check's size;
 * harness_units.cu: a speed check's timed units; harness_speed.cu: its phases; harness_bench.cu:
 * make bench. */
#ifndef GRADER_RUN_HARNESS_PARTS_H
#define GRADER_RUN_HARNESS_PARTS_H

#include "../wire/check_line.h"
#include "harness.h"
#include "alone_cache.h"
#include "hidden_size.h"
#include "profile_trusted.h"
#include "../wire/proto.h"
#include "../wire/records.h"
#include "../plan/speed_plan.h"
#include "worker_trusted.h"
#include "../../common/buffer.h"
#include "../../common/check.h"
#include "../../common/stats.h"
#include "../../common/gpu_watch.h"
#include "../../common/timing.h"
#include "../../common/util.h"

#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- harness.cu: the command line ---- */
typedef struct options {
    int serve, bench, profile, list_checks;
    int no_guards; /* make sanitize: outputs without guard zones, so memcheck sees overruns */
    const char *problem; /* --problem: the lab's problem.so (default: beside argv[0]) */
    const char *timeline; /* --profile: record a timeline here instead of profiler sections */
    int emulator_size;    /* --profile: at the problem size the CPU emulator uses (make explain) */
    const char *counts;   /* --profile: the emulator's counts of each section go here, counted in
                             the sandboxed workers (make explain); NULL: profiler sections */
    const char *worker_log; /* --profile: what the workers print goes here (capped), or NULL */
    const char *reference_counts; /* --profile with --counts: the reference's counts kept in
                                     files PREFIX.N.* (profile_keep_counts), or NULL */
    const char *student_counts; /* --profile with --counts: the student's counts at the first
                                   size kept in files PREFIX.N.* (make grade's WHERE count), or
                                   NULL (make explain: counted every time) */
    const char *second_counts; /* --profile with --counts: every speed problem counted again at
                                  the lab's second size (count_scale), its counts here and its
                                  sections on stdout as `second N` lines; NULL: one size */
    const char *worker, *student_so, *reference_so;
    int isolate;
    double cap_s;
    const char *results; /* bench: where the records go */
    const char *variant_name[16];
    const char *variant_so[16];
    int n_variants;
    sandbox_places hidden; /* what no worker may see, by name (the driver's --checkout ...) */
} options;

/* ---- harness_units.cu and harness_speed.cu: a speed check's problems, units and phases ---- */
#define MAX_INSTANCES PROTO_MAX_CALLS
#define MAX_IO 8
#define V_STUDENT 0
#define V_REFERENCE 1
#define V_NULL 2
#define V_CEILING 3 /* a lab whose ceiling is made of a timed call (ceiling_of_run): timed too */

typedef struct speed_ctx {
    const lab_task *t;          /* the task timed */
    void *inst[MAX_INSTANCES];  /* its problems: one call each per timed unit */
    int k;                      /* how many */
    int k_of[TIMING_MAX_VARIANTS]; /* bench: calls of variant v per timed unit, 0: k (a rung
                                   many times slower than the reference needs fewer calls for
                                   a unit of the same length: make bench's time, not precision) */
    int impl_of[TIMING_MAX_VARIANTS]; /* variant -> implementation (IMPL_NULL: null call) */
    uint64_t seed;              /* fresh inputs of round r come from rng_derive(seed, r) */
    void *saved[MAX_INSTANCES][MAX_IO]; /* outputs of whoever ran first in the round */
    uint64_t in_hash[MAX_INSTANCES * MAX_IO]; /* inputs as refreshed, in unit_inputs' order */
    int pending;                /* the variant whose sample just ran, -1 if none */
    int first;                  /* the first of student/reference to run this round, -1 */
    int compare;                /* 1: compare outputs (grading); 0: bench, time only */
    int failed;                 /* 1 once a timed output or input was wrong */
    verify_result bad;          /* what was wrong, if failed */
    long long compared;         /* timed outputs compared in full */
    int left_running;           /* student's samples after which the GPU was still busy */
    /* What the idle probes saw, per sample of the phase being timed (time_phase): */
    int round;                  /* the round being timed; negative in warm-up rounds */
    int nv;                     /* variants of the phase (row length of the arrays below) */
    int max_rounds;             /* rows of the arrays below */
    double *left_ms;            /* [round * nv + v]: how long the GPU stayed busy after the call
                                   of v answered (ms; 0: idle at once); NULL: not kept */
    unsigned char *busy_before; /* [round * nv + v]: 1 if the GPU was busy before that call */
    int busy_now;               /* the GPU was busy before the sample being timed */
    /* Seconds of a phase's untimed work, by part (make bench-grading's table): fresh inputs
     * and their hashes, poisoned outputs, the checks after a sample (guards, inputs, outputs
     * saved or compared), the idle probes before a sample. */
    double refresh_s, prepare_s, settle_s, probe_s;
    /* Fewer calls in the student's units (speed_fewer_calls): the phase's pass mark (0: the
     * student's units keep k calls), each variant's warm-up unit (wall ms), the plan's calls
     * per unit of each variant, and whether the student's units hold fewer now. */
    double threshold;
    double warm_ms[TIMING_MAX_VARIANTS];
    int calls_now[TIMING_MAX_VARIANTS];
    int fewer, fewer_decided;
    /* The GPU watched while phase 1 is timed (common/gpu_watch.h): its readings after each
     * kept round, when watch_on. */
    int watch_on;
    gpu_span watch;
} speed_ctx;

int calls_of(const speed_ctx *c, int v);
double ceiling_ms(speed_ctx *c, const device_info *d, double clock_mhz, l2_flusher *f,
                  cudaStream_t s);
double median_of(const timing_result *r, int host_clock, int v);
void phase_free(speed_ctx *c);
void run_speed(const check_cmd *o, const lab_task *t, const long long size[LAB_MAX_DIMS],
               const device_info *d, double clock_mhz, l2_flusher *f, cudaStream_t s,
               speed_ctx *c);
void speed_after_round(void *ctx, int round);
int speed_restart(void *ctx, const timing_result *r);
void speed_before_round(void *ctx, int round);
void speed_free(speed_ctx *c);
/* From now on the student's units hold `calls` calls: 1 (fewer), or the check's k. */
void student_unit_calls(speed_ctx *c, int calls);
void speed_instances(speed_ctx *c, const long long size[LAB_MAX_DIMS], uint64_t seed,
                     const device_info *d, double unit_ms, cudaStream_t s);
void speed_prepare(void *ctx, int v, cudaStream_t s);
void speed_run(void *ctx, int v, cudaStream_t s);

/* ---- harness_emit.cu: the records, device memory, one call verified, a check's size ---- */
/* A check begins: no `reclaim` record written in it yet (emit_reclaim, on_cuda_error). */
void reclaim_begin_check(void);
void sizes_for(const lab_check *c, const lab_task *t, int index, uint64_t seed,
               const device_info *d, long long size[LAB_MAX_DIMS]);
void call_and_verify(const lab_task *t, void *p, int impl, cudaStream_t s,
                     verify_result *v);
/* (harness.cu) 1 when a verified call did the task: every output compared and right, the
 * guards and the inputs intact, no rule broken (a correctness check's pass; the WHERE count's
 * counted calls are held to it too: profile_trusted.cu) */
int call_verified(const verify_result *v);
void emit_device(const device_info *d, double clock_mhz);
void emit_reclaim(const char *who, size_t needed);
void emit_verify(const verify_result *v, const char *impl, const char *note);
void emit_worker_failure(const worker_failure *f, cudaStream_t s);
void *harness_device_alloc(size_t bytes);
const char *impl_who(int impl);
void on_cuda_error(cudaError_t err, const char *call, const char *file, int line);

/* ---- harness_labs.cu: the lab served, and --serve's loop ---- */
const lab_info *served_lab(void);   /* the lab served now (its problem.so's harness_lab) */
const lab_task *served_tasks(void); /* and its tasks (harness_tasks) */
const char *harness_reference_object(void); /* the lab's reference.so, or NULL */
void served_reference_set(const char *so);
const char *served_problem_beside(const char *argv0);
void served_lab_load(const char *so);
int serve_lines(device_info *d, int reply_fd, const char *why);
/* harness_emit.cu: what the shims reported, forgotten at a lab's end */
void harness_problems_clear(void);

/* ---- harness.cu: one check ---- */
void prewarm_after(int done, const device_info *d);
void prewarm_reset(void); /* (a lab's end) */
void run_check(const check_cmd *o, const device_info *d, const char *isolation_why);
/* ---- harness_bench.cu ---- */
void run_bench(const options *o, const device_info *d);

#endif
