/* timing_rule.h - the fixed numbers of time_interleaved's stopping rule (timing.h), in plain C
 * for code that plans timing without a GPU (the grading-time model, grader/plan/grade_model.c). */
#ifndef COMMON_TIMING_RULE_H
#define COMMON_TIMING_RULE_H

/* A hard cap stops measuring only once this many rounds are kept. */
#define TIMING_HARD_CAP_MIN_ROUNDS 3

/* STOP_CLEAR: after TIMING_CLEAR_ROUNDS x min_rounds kept rounds, the ratio's interval lies
 * wholly below TIMING_CLEAR_BELOW x the threshold or above TIMING_CLEAR_ABOVE x it: the
 * verdict is certain long before the ratio is known to the plan's precision. */
#define TIMING_CLEAR_ROUNDS 2
#define TIMING_CLEAR_BELOW 0.8
#define TIMING_CLEAR_ABOVE 1.25

#endif
