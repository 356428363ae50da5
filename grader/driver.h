/* driver.h - the trusted grader's decisions, separated from its main() so they can be tested.
 *
 * The driver never runs student code itself: it starts the lab's runner as a child process
 * (run_child), reads the records the runner wrote (read_records), and decides (decide_check)
 * from the lab's table, the thresholds in force and those raw facts alone. */
#ifndef GRADER_DRIVER_H
#define GRADER_DRIVER_H

#include "lab.h"
#include "results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum verdict {
    VERDICT_OK,   /* passed: points earned */
    VERDICT_FAIL, /* the student's code was wrong, slow, crashed or hung: points lost */
    VERDICT_SKIP, /* not run: speed after a correctness failure, or no GPU to time on */
    VERDICT_ERROR /* could not run for a reason outside the student's code (no GPU, ...) */
} verdict;

/* How a child process ended. */
typedef struct child_outcome {
    int exited;       /* 1 if it called exit (status is valid) */
    int status;       /* its exit status, if exited */
    int signal;       /* the signal that killed it, if !exited and !timed_out */
    int timed_out;    /* 1 if the driver killed it at the time limit */
    double seconds;   /* wall time from start to end */
} child_outcome;

/* Run argv[0] with argv in its own process group, stdout and stderr appended to log_path,
 * stdin from /dev/null; kill the whole group after timeout_s. Returns 0, or -1 if it could
 * not be started (o->status is then 127). */
int run_child(char *const argv[], const char *log_path, double timeout_s, child_outcome *o);

/* All records of a results file. */
typedef struct record_list {
    record *rec;       /* parsed records in file order */
    int n;             /* how many */
    int malformed_line;/* 1-based line number of the first malformed line, 0 if none */
    char malformed_why[128]; /* what was wrong with it */
} record_list;

/* Read and parse `path` (a missing file reads as an empty list). */
void read_records(const char *path, record_list *l);
void free_records(record_list *l);
/* The first record of `type` at or after index `from`, or NULL. */
const record *find_record(const record_list *l, const char *type, int from);

/* The speed figures decided from a speed check's samples. */
typedef struct speed_figures {
    int rounds;          /* interleaved rounds (student, reference, null call) */
    int calls;           /* calls per timed unit (each sample times this many) */
    double null_ms;      /* median time of a null call through the same path */
    double ref_alone_ms; /* median reference unit with the student's process gone (0: none) */
    double slowdown;     /* ref_ms / ref_alone_ms - 1 (0 when not measured) */
    double ratio;        /* median over pairs of reference time / student time */
    double ci_lo, ci_hi; /* its ~95% confidence interval */
    double stu_ms;       /* median student time */
    double ref_ms;       /* median reference time */
    double rate;         /* student's work / time, in unit */
    double ceiling_rate; /* the ceiling's work / time, in unit (0 if unknown) */
    char unit[16];       /* "GB/s", "GFLOP/s" */
    char ceiling[64];    /* what the ceiling is */
    int close_call;      /* 1 if the interval still contains the threshold */
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
    char size[128];       /* problem size the runner reported, may be empty */
} check_decision;

/* Decide from how the runner ended alone (CUDA error, crash, hang, bad exit, garbage, no
 * `end` record); returns 1 and fills d if that decided it, 0 if the records must be read. */
int decide_process(const lab_info *lab, const child_outcome *o, const record_list *l,
                   check_decision *d);

/* Decide check `c` of `lab` from how its runner ended and what it wrote. `threshold` is the
 * pass mark in force for speed. */
void decide_check(const lab_info *lab, const lab_check *c, double threshold,
                  const child_outcome *o, const record_list *l, check_decision *d);

/* Find a lab by name ("coalescing") or number ("01", "1"); NULL if none. */
const lab_info *find_lab(const char *key);

#ifdef __cplusplus
}
#endif
#endif
