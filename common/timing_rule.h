/* timing_rule.h - time_interleaved's stopping rule (timing.h) in plain C: its fixed numbers, for
 * code that plans timing without a GPU (the grading-time model, grader/plan/grade_model.c), and
 * its decision on a phase's ratios (timing_rule.c), which the unit tests hold to each case. */
#ifndef COMMON_TIMING_RULE_H
#define COMMON_TIMING_RULE_H

/* A hard cap stops measuring only once this many rounds are kept. */
#define TIMING_HARD_CAP_MIN_ROUNDS 3

/* STOP_CLEAR: after TIMING_CLEAR_ROUNDS x min_rounds kept rounds, the ratio's interval lies
 * wholly below TIMING_CLEAR_BELOW x the threshold or above TIMING_CLEAR_ABOVE x it: the
 * verdict is certain long before the ratio is known to the plan's precision. Above the mark
 * 1.2: lab 05's reference graded as a student (ratio 1.0, mark 0.80) has an interval of a few
 * per cent after 20 rounds, which 1.25 (all of it above 1.0) never let stop: it ran on to the
 * 1% precision, 11 to 50 rounds of copies over PCIe. Full points need only the mark, and the
 * phases after this one (the reference alone) run as before. One times min_rounds: with six
 * rounds the 95% interval is their whole range, so this stops when every one of the six
 * ratios lies 20% beyond the mark, on the same side: the evidence STOP_PRECISE takes at six
 * rounds (every ratio within 1% of their median, however near the mark), here held 20% away
 * from the mark. Twelve rounds were asked before: replayed through this rule, H200 batches'
 * own rounds took 1.0-1.3 s a student less (lab 05's rounds, 0.15-0.3 s each, the most), and
 * no verdict changed (tests/gpu/results/h200x4-scaling.txt). Asking the stop a precision as
 * well (the interval within 1.5% of the ratio; within 2% at six rounds, else twelve) was tried
 * twice and brought lab 05's self-check no nearer 1.0: its ratio is off by up to 3% for a whole
 * check, the sign changing from check to check, however many rounds it measures
 * (h100x4-scaling.txt, h200x2-fewer-calls.txt). */
#define TIMING_CLEAR_ROUNDS 1
#define TIMING_CLEAR_BELOW 0.8
#define TIMING_CLEAR_ABOVE 1.2

/* STOP_CLEAR sooner, for a slow implementation only: after TIMING_EARLY_ROUNDS kept rounds,
 * the ratio's interval (with so few rounds, the range of every round's ratio) lies wholly
 * below TIMING_EARLY_BELOW x the threshold: every round so far, after the warm-up round, said
 * "at most 0.6 of the mark" (an untouched skeleton at a hundredth of the reference's speed
 * takes a second a round; more of them would only confirm it). Three is the fewest the driver
 * takes a verdict from, and with three the interval is already their whole range: an honest
 * file at the mark would have to run 40% slower than itself in all three, each beside a
 * reference call of the same round (noise that slows the GPU slows both). 0.6, not 0.5: an
 * untouched skeleton's ratio can sit at half its lab's mark (lab 05's at 0.39-0.40 against
 * 0.40), and one round above the line sends it on to the clear rule's six rounds of the
 * lab's slowest problem. Never above the mark: a verdict that passes, or that rests on
 * evidence gathered over the rounds (work left running, a slowed reference), keeps the full
 * plan. */
#define TIMING_EARLY_ROUNDS 3
#define TIMING_EARLY_BELOW 0.6

#ifdef __cplusplus
extern "C" {
#endif

typedef enum timing_stop {
    STOP_PRECISE,   /* the ratio is known to `precision` and clear of the threshold */
    STOP_SOFT_CAP,  /* time ran out; the ratio is clear of the threshold */
    STOP_HARD_CAP,  /* time ran out with the ratio still straddling the threshold */
    STOP_MAX_ROUNDS,/* max_rounds reached */
    STOP_CLEAR,     /* the interval is far from the threshold: the verdict is certain */
    STOP_FIXED      /* no stopping rule: ran max_rounds */
} timing_stop;

/* Whether a phase stops after n kept rounds whose ratios (the numerator variant's time over
 * the denominator's, each less the offset's median, round by round) are ratio[0..n): 1 with
 * *why set, else 0. min_rounds, threshold (0: none), precision and soft_cap_s are the plan's,
 * elapsed the seconds its kept rounds took. The plan's other stops (max_rounds, the hard cap,
 * no ratio to watch) are the caller's, before this. */
int timing_rule_stop(const double *ratio, int n, int min_rounds, double threshold,
                     double precision, double elapsed, double soft_cap_s, timing_stop *why);

/* The ratios the rule watches, round by round into ratio[0..n): num[i] / den[i], each less the
 * median of off[0..n) first (off NULL: nothing) and then divided by its unit's calls (num_calls,
 * den_calls; below 1: one), so that units of different numbers of calls compare per call. */
void timing_rule_ratios(const double *num, const double *den, const double *off, int n,
                        int num_calls, int den_calls, double *ratio);

#ifdef __cplusplus
}
#endif

#endif
