/* speed_plan.h - how long a speed check may measure: its timing plan, the phases it runs and
 * their rounds and caps, in one place for the harness that times them
 * (grader/harness/harness_speed.cu), the driver that sets the cap (grader/driver/harnesses.c)
 * and the model that predicts how long grading takes on a GPU (grader/plan/grade_model.c).
 * Plain C, no CUDA. */
#ifndef GRADER_SPEED_PLAN_H
#define GRADER_SPEED_PLAN_H

/* A timed unit is K calls of one implementation, K chosen so that the unit lasts this long at
 * the reference's speed: long enough that what going between processes costs beyond a null
 * call (about 0.1-0.2 ms, on an H200) is 1-2% of it. */
#define SPEED_UNIT_MS 10.0

/* Stop once the interleaved phase's ratio is known to this fraction of itself. */
#define SPEED_PRECISION 0.01

/* The time cap of a speed check, seconds, which the driver sends on each check line: past it
 * the interleaved phase stops unless the ratio's interval still straddles the pass mark (then
 * it goes on to its row's cap_of_check times it); every other phase stops at its own cap. */
#define SPEED_CAP_S 15.0

/* The phases of a speed check, in the order they run: the timing plan. The harness runs each
 * from its row (grader/harness/harness_speed.cu: run_speed, time_alone, reference_alone,
 * ceiling_ms) and the grading-time model predicts each from the same row
 * (grader/plan/grade_model.c, predict_speed); nothing else states their rounds or caps. */
typedef enum speed_phase_id {
    PHASE_SAMPLE,       /* student, reference and null call interleaved until the ratio is
                           known: records `sample` */
    PHASE_ALONE,        /* the reference and the null call, the student's process gone:
                           `alone` (phase 1), unless the ratio is surely below the pass mark */
    PHASE_AGAIN_BESIDE, /* the reference slower beside the student than alone: both measured
                           again, `beside` (phase 2) ... */
    PHASE_AGAIN_ALONE,  /* ... and `alone` (phase 2) */
    PHASE_CEILING,      /* the ceiling, one call a round, where the lab times it alone */
    SPEED_N_PHASES
} speed_phase_id;

typedef struct speed_phase {
    int warmup_rounds;  /* rounds run first and discarded */
    int min_rounds;     /* never stop before this many kept rounds */
    int max_rounds;     /* never more; min_rounds == max_rounds: fixed rounds, no verdict rests
                           on their ratio (the stopping rule is off) */
    double cap_of_check; /* its hard cap, times the check's cap (the interleaved phase: past
                           the cap it stops unless the ratio's interval still straddles the
                           pass mark, then goes on to this many times the cap) ... */
    double cap_s;       /* ... or, where cap_of_check is 0, a cap of its own, seconds */
} speed_phase;

/* The rows, in speed_phase_id's order. The interleaved phase's 6 rounds at least: with six,
 * the 95% interval is their whole range, so stopping there needs all six ratios within 1% of
 * their median. The reference alone's 8: its median is held against the lab's noise, 5-15%
 * (lab.h). */
static const speed_phase speed_phases[SPEED_N_PHASES] = {
    /* PHASE_SAMPLE */       {1, 6, 1000, 3, 0},
    /* PHASE_ALONE */        {1, 8, 8, 1, 0},
    /* PHASE_AGAIN_BESIDE */ {1, 8, 8, 1, 0},
    /* PHASE_AGAIN_ALONE */  {1, 8, 8, 1, 0},
    /* PHASE_CEILING */      {1, 7, 7, 0, 60.0},
};

/* A phase's hard cap, seconds, for a check whose cap is check_cap_s. */
static inline double speed_phase_cap_s(const speed_phase *p, double check_cap_s)
{
    return p->cap_of_check > 0 ? p->cap_of_check * check_cap_s : p->cap_s;
}

#endif
