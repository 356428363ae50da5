/* alone_cache.h - TRUSTED (the harness): the reference alone, measured once and kept for a
 * while by a batch, per GPU.
 *
 * After a speed check's interleaved rounds the harness times the reference again with the
 * student's process gone (`alone`): the reference beside the student against alone tells
 * whether the student's code slowed the reference. That measurement holds nothing of the
 * student's: for one GPU, one lab's check at one size and one reference it is the same for
 * every student a batch grades there. So a batch (make grade-batch sets GRADER_ALONE_CACHE to
 * a folder of its own output, which no student's code sees) keeps the last one made on each
 * GPU for GRADER_ALONE_CACHE_S seconds (default ALONE_CACHE_MAX_AGE_S; 0 turns it off). A later
 * student whose reference ran no slower beside them than that measurement, within the lab's
 * noise, is compared with it; one whose reference ran slower has it measured alone again, as
 * without the cache, and that measurement is kept in its place. A GPU that grew faster since
 * could hide a slowdown no larger than its gain; a GPU that grew slower only costs a measurement.
 * make grade (one student) keeps nothing: the variable is unset there. */
#ifndef GRADER_RUN_ALONE_CACHE_H
#define GRADER_RUN_ALONE_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ALONE_CACHE_MAX_ROUNDS 64
#define ALONE_CACHE_MAX_AGE_S 300.0
#define ALONE_CACHE_KEY_MAX 512

/* One measurement of the reference alone: its rounds' times (the reference's and the null
 * call's, ms, as the `alone` records hold them) and, once read back, its age. */
typedef struct alone_series {
    int n;
    double ref_ms[ALONE_CACHE_MAX_ROUNDS];
    double null_ms[ALONE_CACHE_MAX_ROUNDS];
    double age_s; /* set by alone_cache_get: seconds since it was measured */
} alone_series;

/* The cache's folder and how long an entry serves, from the environment: 0 with *dir and
 * *max_age_s set, or -1 where the cache is off (GRADER_ALONE_CACHE unset or empty,
 * GRADER_ALONE_CACHE_S 0 or not a number). */
int alone_cache_config(const char **dir, double *max_age_s);

/* The key of a measurement: every fact it depends on, as text (no '\n'). The lab and check,
 * the problem's size as the check describes it, the calls per timed unit, the GPU (its
 * machine's name and PCI address) and the reference (an identity of its file). Returns 0, or
 * -1 if it does not fit. */
int alone_cache_key(char *out, size_t len, const char *lab, int check, const char *size,
                    int calls, const char *gpu, const char *reference);

/* The measurement kept under `key`, if one younger than max_age_s is there and reads back
 * whole: 0 with *s filled, else -1. */
int alone_cache_get(const char *dir, const char *key, double max_age_s, alone_series *s);

/* Keep s under `key` (made now), in place of what was there: written whole or not at all.
 * Returns 0, or -1 (nothing changed; the next student measures again). */
int alone_cache_put(const char *dir, const char *key, const alone_series *s);

/* The rule: the kept measurement `a` stands for the reference alone only if the reference beside
 * the student (ref_ms and null_ms, n rounds of the interleaved phase) ran no slower than it, by
 * stats_slowdown, beyond the lab's noise (`noise`, as 0.03 for 3%). 1: it stands; 0: measure
 * the reference alone now. */
int alone_cache_serves(const double *ref_ms, const double *null_ms, int n, const alone_series *a,
                       double noise);

#ifdef __cplusplus
}
#endif
#endif
