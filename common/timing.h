/* timing.h - side-by-side timing that holds up: L2 flush, two clocks, interleaved variants.
 *
 * One sample of one variant:
 *     prepare (untimed: poison outputs) -> flush L2 -> synchronize the device ->
 *     host clock t0 -> event e0 on the stream -> the call -> event e1 ->
 *     synchronize the device -> host clock t1
 * Events measure the work on the harness's stream; the host clock around a device-wide
 * synchronize also catches work that escaped to another stream. (The grader times a student's
 * call from outside its process with the host clock, and finds work left running after the
 * call answered with an idle probe: grader/harness/harness.cu.)
 *
 * Variants are timed round-robin in the same process on the same data (A B A B ..., each
 * round starting at a different variant), so clock drift, thermals and neighbours hit every
 * variant alike, and the ratio of two variants is measured pair by pair. */
#ifndef COMMON_TIMING_H
#define COMMON_TIMING_H

#include <stddef.h>
#include <cuda_runtime.h>

#include "device.h"
#include "timing_rule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evicts the L2 by reading a buffer of at least twice its size (reads leave no dirty lines
 * whose write-back would be billed to the next timed call). */
typedef struct l2_flusher {
    float *buf;    /* device buffer read by the flush kernel */
    size_t bytes;  /* its size */
    float *sink;   /* one float the flush kernel may write, to keep the reads alive */
} l2_flusher;

void l2_flusher_init(l2_flusher *f, const device_info *d);
void l2_flush(l2_flusher *f, cudaStream_t s);
void l2_flusher_free(l2_flusher *f);

/* What to time: ctx is passed back untouched; variant is 0..n_variants-1. */
typedef void (*timed_fn)(void *ctx, int variant, cudaStream_t s);

typedef struct timing_result timing_result;

typedef struct timing_plan {
    int n_variants;     /* variants timed round-robin, at most TIMING_MAX_VARIANTS */
    int warmup_rounds;  /* rounds run first and discarded (module load, clocks ramping up) */
    int min_rounds;     /* never stop before this many kept rounds */
    int max_rounds;     /* never take more than this many */
    double soft_cap_s;  /* stop here even if imprecise, unless the ratio straddles threshold */
    double hard_cap_s;  /* stop here whatever the interval says */
    int ratio_num;      /* the stopping rule watches time[ratio_num] / time[ratio_den]... */
    int ratio_den;      /* ...per round; ratio_num < 0 disables the rule (fixed rounds) */
    int ratio_offset;   /* a variant subtracted from both first (a null call's cost through
                           the same path), or -1 for none */
    double threshold;   /* keep measuring while the ratio's interval contains this (0: none) */
    double precision;   /* stop once the interval's half-width is this fraction of the median */
    int host_clock;     /* 1: the host clock is the measurement (work on several streams, or
                           in another process) */
    void (*before_round)(void *ctx, int round); /* optional, untimed: fresh inputs, ... */
    /* Optional: the calls one unit of variant v holds, calls[v] (NULL, or 0: one), read at
     * every decision, so that the rule's ratios are per call when the two sides' units hold
     * different numbers of calls. */
    const int *calls;
    /* Optional, after a kept round that did not stop the phase: 1 discards the kept rounds
     * and measures again from none (the warm-up is not run again). */
    int (*restart)(void *ctx, const timing_result *r);
} timing_plan;

#define TIMING_MAX_VARIANTS 16

/* timing_stop: why measuring stopped (timing_rule.h) */

struct timing_result {
    int rounds;       /* kept rounds */
    int n_variants;   /* copied from the plan */
    double *event_ms; /* [rounds * n_variants]: event time of variant v in round r at r*n+v */
    double *host_ms;  /* same layout: host-clock time */
    timing_stop stop; /* why measuring stopped */
    double seconds;   /* wall time spent measuring */
};

/* Run one sample of `variant`: prepare untimed, flush (if f), then time fn. */
void time_one(timed_fn prepare, timed_fn fn, void *ctx, int variant, l2_flusher *f,
              cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double *event_ms, double *host_ms);

/* Time all variants round-robin under `plan`; `after_round`, if not NULL, is called after each
 * kept round (the grader re-verifies outputs there). Free the result with timing_result_free. */
void time_interleaved(const timing_plan *plan, timed_fn prepare, timed_fn fn, void *ctx,
                      void (*after_round)(void *ctx, int round), l2_flusher *f, cudaStream_t s,
                      timing_result *out);

void timing_result_free(timing_result *r);

/* The samples the plan calls "the" time of variant v (event or host clock) into out[rounds]. */
void timing_series(const timing_result *r, int host_clock, int v, double *out);

#ifdef __cplusplus
}
#endif
#endif
