/* decision.h - TRUSTED, NO GPU: what a decision is (a verdict, its message and detail, a speed
 * check's figures) and the thresholds of evidence the decisions share; the deciding is
 * verdict.h's (verdict.c, speed_verdict.c). */
#ifndef GRADER_DECIDE_DECISION_H
#define GRADER_DECIDE_DECISION_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum verdict {
    VERDICT_OK,   /* passed: points earned */
    VERDICT_FAIL, /* the student's code was wrong, slow, crashed or hung: points lost */
    VERDICT_SKIP, /* not run: speed after a correctness failure, or no GPU to time on */
    VERDICT_ERROR /* could not run for a reason outside the student's code (no GPU, ...) */
} verdict;

/* The speed figures decided from a speed check's samples. */
typedef struct speed_figures {
    int rounds;          /* interleaved rounds (student, reference, null call) */
    int calls;           /* calls per timed unit (each sample times this many) */
    int stu_calls;       /* the student's calls per timed unit: calls, or fewer where one call of
                            its lasted a unit and it ran far below the mark (harness_units.cu) */
    double null_ms;      /* median time of a null call through the same path */
    double ref_alone_ms; /* median reference unit with the student's process gone (0: none) */
    double slowdown;     /* ref_ms / ref_alone_ms - 1 (0 when not measured) */
    double slowdown_bound; /* the lab's noise (lab_slowdown_noise) slowdowns are held against */
    int n_slowdowns;     /* comparisons of the reference beside with alone: 0, 1, or 3 when it
                            was measured again (slowdowns[0] is `slowdown`) */
    double slowdowns[3]; /* phase 1 / alone 1, phase 2 / alone 1, phase 2 / alone 2 */
    int slowdown_rounds[4]; /* rounds of phase 1, alone 1, phase 2, alone 2 */
    int left_counted;    /* the student's timed units after which the harness's idle probe
                            could tell (the GPU idle before the call) */
    int left_units;      /* of those, units after which the GPU stayed busy LEFT_RUNNING_MS or
                            more: the student's work still running after its call answered */
    int left_ref_counted, left_ref_units; /* the same for the reference's units (the control) */
    double left_max_ms;  /* the longest such wait after a student's unit */
    double left_median_ms; /* the median one (0 when left_units is 0) */
    double ratio;        /* median over pairs of reference time / student time */
    double ci_lo, ci_hi; /* its ~95% confidence interval */
    double stu_ms;       /* median student time */
    double ref_ms;       /* median reference time */
    double rate;         /* student's work / time, in unit */
    double ceiling_rate; /* the ceiling's work / time, in unit (0 if unknown) */
    char unit[16];       /* "GB/s", "GFLOP/s" */
    char ceiling[64];    /* what the ceiling is */
    int close_call;      /* 1 if the interval still contains the threshold */
    char gpu_watch[16];  /* the GPU's clock while timed (common/gpu_watch.h, harness_speed.cu):
                            "quiet", "throttled", "not watched", or "" (no such field) */
    char gpu_watch_why[256]; /* what the watch saw, in words */
    int gpu_watch_again; /* 1: timed again, the first phase having run on a held-down clock */
} speed_figures;

/* The driver's decision for one check. */
typedef struct check_decision {
    verdict v;            /* the verdict */
    char message[512];    /* one line for the grade table; student text in it is rendered
                             visible (common/text.h): no control characters */
    char detail[1024];    /* further lines (counterexample, what to try), may be empty; the
                             same */
    int has_speed;        /* 1 if speed holds figures */
    int below_threshold;  /* 1 if a speed check failed only for its ratio (partial credit may
                             apply); 0 for every other verdict and reason */
    speed_figures speed;  /* valid only if has_speed */
    char size[128];       /* problem size the harness reported, may be empty */
    char blame[24];       /* what the verdict holds against the student beyond its own answer,
                             on the evidence the message states: "left-running" (its work ran
                             on after its call), "slowed-reference", "gpu-memory" (it held the
                             memory the grader needed); "" for none */
} check_decision;

/* A `reclaim` record (the harness ended the student's process after the grader ran short of
 * device memory) shows the shortage was the student's when that process held at least this
 * fraction of the device's memory (and gave back what the grader asked for, where known):
 * an honest student's buffers are a fraction of the problem, itself at most half the free
 * memory (sizing_memory_budget, common/sizing.h). */
#define MEMORY_BLAME_FRACTION 0.25

/* Work left running: the harness's idle probe found the GPU still busy this long (ms) or more
 * after a timed unit answered. Shorter waits are a context switch, or the harness's own thread
 * scheduled late. */
#define LEFT_RUNNING_MS 1.0

#ifdef __cplusplus
}
#endif
#endif
