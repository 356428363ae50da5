/* grade_model.h - how long `make grade` takes on a GPU that is not here, and how much of its
 * memory each lab's timed problem holds.
 *
 * A model, not a measurement: each speed check's problem is sized by the lab's own sizing
 * code (lab_info.speed_size) for a device_info made from a GPU profile; one call of the
 * reference takes the check's work at the rate the reference reached on the H200, scaled by
 * the profile's share of the resource that bounds it (DRAM bandwidth, FP32 or integer issue
 * rate, host link); the student's call takes that over the ratio an untouched skeleton (or
 * the solution) reached on the H200. The rounds are those the stopping rule takes at most
 * (common/timing_rule.h, grader/plan/speed_plan.h). What a round costs beyond the timed calls
 * (fresh inputs, poisoned and compared outputs, process round trips) and what a check costs
 * once (its problems' creation, pinning host arrays, the ceiling) are fitted to the H200's
 * measured per-check times (tests/gpu/results/h200-bench-grading.txt). The build is not
 * included, nor the time a correctness check takes on a host slower than the H200's (they are
 * CPU-bound: their H200 times are used as they are). On the H200 the at-most figure is above
 * every check's measured time, the skeletons' and the solutions'. */
#ifndef GRADER_GRADE_MODEL_H
#define GRADER_GRADE_MODEL_H

#include "../lab.h"
#include "../../common/device_info.h"
#include "../../common/gpu_profiles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_subject {
    GRADE_SKELETONS, /* the untouched student files: slow, every speed check fails (worst case) */
    GRADE_SOLUTIONS  /* the reference solutions graded as student files */
} grade_subject;

typedef enum grade_rounds {
    ROUNDS_AT_MOST,  /* as many rounds as the stopping rule and the caps allow, and the
                        remeasurement a slowed reference asks for: an upper bound */
    ROUNDS_EXPECTED  /* the rounds an H200 run takes (what the fit is made against) */
} grade_rounds;

/* One speed check on one device. */
typedef struct speed_prediction {
    int modelled;          /* 1: every check is modelled (a lab without a calibration row, one
                              added since, by the model's default: see `calibrated`) */
    int calibrated;        /* 1: from the check's H200 calibration row; 0: the default */
    int check;             /* row in the lab's table */
    long long size[LAB_MAX_DIMS]; /* the timed problem (lab_info.speed_size) */
    lab_footprint f;       /* what one call asks (lab_info.footprint) */
    int calls_per_unit;    /* K problems per timed unit, as the harness picks them */
    double memory_bytes;   /* device memory the check holds: K problems, their saved outputs,
                              the L2 flush buffer */
    double ref_call_s;     /* one call of the reference */
    double student_call_s; /* one call of the graded file */
    int rounds;            /* interleaved rounds, warm-up included */
    double seconds;        /* the check, start to end */
} speed_prediction;

#define GRADE_MODEL_MAX_SPEED 4 /* speed checks of one lab, at most */

typedef struct lab_prediction {
    const lab_info *lab;
    int n_speed;                                  /* speed checks filled below */
    speed_prediction speed[GRADE_MODEL_MAX_SPEED];
    double correctness_s;  /* every correctness check together (H200 measurement: CPU-bound) */
    double seconds;        /* the lab, all checks */
} lab_prediction;

struct config;
/* The rules the model predicts under: the course config in force (config_load), whose pass
 * marks (config_pass_mark) set how long a speed check runs; NULL (the default): every lab
 * table's own. The model reads a pass mark nowhere else. */
void grade_model_rules(const struct config *cfg);

/* Predict lab `lab` graded on device d. */
void grade_model_lab(const lab_info *lab, const device_info *d, grade_subject who,
                     grade_rounds rounds, lab_prediction *out);

/* Predict every lab (all_labs) on d: the seconds of a whole `make grade`, less the build. */
double grade_model_total(const device_info *d, grade_subject who, grade_rounds rounds);

/* The H200's measured seconds of speed check `check` of `lab` (mean of the runs kept in
 * tests/gpu/results), or -1 when none was measured. */
double grade_model_h200_seconds(const lab_info *lab, int check, grade_subject who);

/* Of a whole `make grade`: the H200's measured seconds (sum of the per-check means). */
double grade_model_h200_total(grade_subject who);

#ifdef __cplusplus
}
#endif
#endif
