/* score.h - points from verdicts: the one scoring rule, for the driver and the batch tool.
 *
 * Pure: the lab's table, the rules in force (the table's defaults under the course config)
 * and each check's verdict in; points, final verdicts and totals out. Nothing here prints,
 * writes JSON or runs anything, so the rule is tested from a table of cases (tests/). */
#ifndef GRADER_SCORE_H
#define GRADER_SCORE_H

#include "../plan/config.h"
#include "verdict.h"
#include "../lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scoring rules of one lab: its table's values, each replaced where the course config
 * (config.h) gives one. */
typedef struct score_rules {
    double threshold;         /* pass mark of a speed check: reference time / student time */
    const char *threshold_source; /* where it came from: "default", "course.conf:3", ... */
    double partial_threshold; /* a speed check failed only for its ratio earns partial credit
                                 at this ratio or more (default 0.8 x threshold); 0: never */
    int partial_points;       /* that credit; -1: half the check's points (rounded down) */
    int speed_points;         /* points of each speed check; -1: the table's */
    int correct_points;       /* points of each correctness check; -1: the table's (0 in
                                 every table: correctness is the gate, speed earns the points) */
    int not_started;          /* 1: the lab's file is missing, or is the workbook's skeleton
                                 with comments and white space aside (grader/plan/started.h):
                                 every check earns 0, whatever the rules give it */
} score_rules;

/* The rules for `lab` under `cfg` (cfg may be NULL: the table's own); not_started is 0 here
 * (the driver sets it from grader/plan/started.h). */
score_rules score_rules_for(const config *cfg, const lab_info *lab);

/* What scoring needs of one check's decision (check_decision in verdict.h). */
typedef struct check_outcome {
    verdict v;           /* the decided verdict */
    int below_threshold; /* 1: a speed check that failed only for its ratio */
    double ratio;        /* its ratio (reference time / student time); if below_threshold */
} check_outcome;

/* One check, scored. */
typedef struct check_score {
    verdict v;           /* final verdict: a speed check after a failed correctness check is
                            VERDICT_SKIP whatever was decided for it */
    int points;          /* what the check is worth under the rules */
    int earned;          /* what it earned: points when OK, partial credit, or 0 */
    int partial;         /* 1 if `earned` is partial credit */
} check_score;

/* A lab, scored. */
typedef struct lab_score {
    int earned;   /* points earned by the checks scored */
    int possible; /* points of every check of the table, scored or not */
    int failed;   /* checks that lost points (VERDICT_FAIL, partial credit included) */
    int not_run;  /* checks skipped or in error */
    int correct_ok, correct_n; /* correctness checks scored OK, and scored */
    int correct_earned, correct_possible; /* their points (0 unless a course gives them) */
    int speed_skipped; /* speed checks skipped with every correctness check passed: not graded
                          here (no GPU), never a verdict on the code */
    int not_started;   /* the rules' not_started: the lab earned nothing for it */
} lab_score;

/* Points of check i of `lab` under `r`. */
int score_check_points(const lab_info *lab, const score_rules *r, int i);

/* 1 if a speed check may count after the first n outcomes: every correctness check among
 * them is OK. Every table lists its speed checks after its correctness checks (tested), so
 * at a speed check this is the whole lab's correctness. */
int score_speed_counts(const lab_info *lab, const check_outcome *in, int n);

/* Score the first n checks of `lab` (0 <= n <= lab->n_checks) from their outcomes in[0..n):
 * out[0..n) (out may be NULL) and the totals. With n = 0 (in may be NULL) it gives the lab's
 * possible points alone. The rules, in order, for check i:
 *   - its points are the rules' speed_points or correct_points where set, else the table's;
 *   - a speed check counts only once every correctness check before it is OK: otherwise
 *     VERDICT_SKIP and 0 points;
 *   - VERDICT_OK earns the points; any other verdict earns 0, except partial credit:
 *   - a speed check that failed only for its ratio (below_threshold), worth points > 0, with
 *     partial_threshold > 0 and ratio >= partial_threshold earns partial_points (or half its
 *     points when partial_points is -1), never more than its points;
 *   - a lab not started (r->not_started) earns 0 in every check, its verdicts as decided.
 * By default (every table) a correctness check is worth 0 and a speed check its points: the
 * skeletons are correct and slow by design, so correctness is the gate and speed earns. */
void score_lab(const lab_info *lab, const score_rules *r, const check_outcome *in, int n,
               check_score *out, lab_score *total);

#ifdef __cplusplus
}
#endif
#endif
