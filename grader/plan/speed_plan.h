/* speed_plan.h - how long a speed check may measure: the numbers of its timing plans, in one
 * place for the harness that times (grader/harness/harness.cu), the driver that sets the cap
 * (grader/driver/driver.c) and the model that predicts how long grading takes on a GPU
 * (grader/plan/grade_model.c). Plain C, no CUDA. */
#ifndef GRADER_SPEED_PLAN_H
#define GRADER_SPEED_PLAN_H

/* A timed unit is K calls of one implementation, K chosen so that the unit lasts this long at
 * the reference's speed: long enough that what going between processes costs beyond a null
 * call (about 0.1-0.2 ms, on an H200) is 1-2% of it. */
#define SPEED_UNIT_MS 10.0

/* Student, reference and null call, interleaved (grader/harness/harness.cu, run_speed). */
#define SPEED_WARMUP_ROUNDS 1   /* rounds run first and discarded */
#define SPEED_MIN_ROUNDS 6      /* never stop before this many kept rounds: with six the 95%
                                   interval is their whole range, so stopping there needs all six
                                   ratios within 1% of their median */
#define SPEED_MAX_ROUNDS 1000   /* never more */
#define SPEED_PRECISION 0.01    /* stop once the ratio's interval is this fraction of it */

/* The time cap of that phase, seconds: past it measuring stops, unless the ratio's interval
 * still straddles the pass mark; then it goes on to SPEED_HARD_CAP_FACTOR times the cap. The
 * phases that follow (the reference alone, and the remeasurement a slowdown asks for) stop at
 * the cap whatever they hold. */
#define SPEED_CAP_S 15.0
#define SPEED_HARD_CAP_FACTOR 3

/* Rounds of the reference alone after the interleaved phase (and of a remeasurement). */
#define SPEED_ALONE_WARMUP_ROUNDS 1
#define SPEED_ALONE_ROUNDS 8 /* its median is held against the lab's noise, 5-15% (lab.h) */

/* Rounds of the ceiling, timed alone once per speed check (when the lab times it). */
#define SPEED_CEILING_WARMUP_ROUNDS 1
#define SPEED_CEILING_ROUNDS 7
#define SPEED_CEILING_CAP_S 60.0

#endif
