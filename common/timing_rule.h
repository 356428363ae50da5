/* timing_rule.h - the fixed numbers of time_interleaved's stopping rule (timing.h), in plain C
 * for code that plans timing without a GPU (the grading-time model, grader/plan/grade_model.c). */
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
 * from the mark. Twelve rounds were asked before: an H200's batches measured 1.3 s a
 * student on those six more rounds (lab 05's, 0.15-0.3 s each, the most), for a verdict that
 * could not change (tests/gpu/results/h200x4-scaling.txt). */
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

#endif
