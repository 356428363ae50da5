/* report.h - TRUSTED, NO GPU: what the driver hands the report of one grading run (the
 * terminal table, terminal.h; results.json, results_json.h): plain data, decided before. */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#include "../decide/score.h"
#include "../decide/verdict.h"
#include "../fault/fault.h"
#include "../plan/started.h"

/* What the build (grader/make/grade.mk, make before the driver) left for a lab:
 * its status word, and its build log, moved into the report folder as <lab>.build.log. */
typedef enum lab_build {
    LAB_BUILT,          /* "ok" (or no build step: everything taken as built) */
    LAB_STUDENT_FAILED, /* "student": the student's file did not compile or was rejected */
    LAB_REFUSED,        /* "refused": the CPU emulator cannot run a feature of the student's
                           (valid CUDA) file; graded "could not run" under emulation alone */
    LAB_GRADER_FAILED,  /* "grader": the lab's own pieces did not build, not the student's doing */
    LAB_STEPS_FAILED,   /* "steps": (bench) a ladder rung did not build */
    LAB_NOT_BUILT       /* no status: the build step did not reach this lab */
} lab_build;

/* How a lab's build is reported (report_build): the build's status once read, and what
 * the driver found beside it. */
typedef struct build_report {
    lab_build build;       /* LAB_REFUSED only with `refusal` */
    int missing;           /* the student's file was not there */
    const char *refusal;   /* the emulator's refusal in the build log, or "" */
    const char *build_log; /* the lab's build log in the report folder, or "" */
    const char *expected;  /* the student's file, where it was looked for */
    started_state started; /* STARTED_WORK, or why the lab is not started (plan/started.h) */
    const lab_info *other; /* a build that failed of a file that is another lab's (it includes
                              that lab's contract: started_other_lab), or NULL */
    const lab_info *lab;   /* the lab graded */
} build_report;

/* The run's totals, and its label from the harnesses' greetings. */
typedef struct totals {
    int earned, possible; /* points */
    int failed;           /* checks that lost points */
    int not_run;          /* checks skipped or in error */
    int correct_ok, correct_n; /* correctness checks passed, and graded */
    int correct_earned, correct_possible; /* their points (0 unless a course gives them) */
    int not_started;      /* labs not started (plan/started.h): each earned nothing */
    int speed_graded;     /* 0: no GPU timed anything (the CPU emulator): no total is a grade */
    int tamper_proof;     /* 1 while every harness so far greeted isolated (and isolation was
                             asked for); once 0, nothing later raises it */
    char isolation[256];  /* why, from the first greeting that lowered it, or the last one */
    char sandbox[16];     /* the sandbox student code ran in: "namespaces", "landlock", "none" */
    const lab_info *first_short; /* the first lab that lost a point (the next step), or NULL */
    enum {
        SHORT_SPEED,       /* its speed is short of the mark (every correctness check passed) */
        SHORT_CORRECT,     /* a correctness check failed (or its build did) */
        SHORT_NOT_STARTED  /* no file, or the skeleton (plan/started.h) */
    } first_short_why;     /* why first_short lost its points: the `Next:` line follows it */
} totals;

/* A fault of the student's code run once more on the CPU emulator (a GPU's fault names no
 * line: the driver's check_fault_rerun, grader/feedback/fault_rerun.h). */
typedef struct fault_report {
    char log[1024];  /* the rerun's log (<lab>.<N>.emu.log), or "" when none ran */
    char note[400];  /* instead of a rerun, what to say (a later fault of the lab, why none
                        could run), or "" */
    double seconds;  /* how long the rerun took */
    int timed_out;   /* it ran out of time */
    int wrong_values;/* it was run for a correctness check's wrong values, not a fault: finding
                        nothing then means the values themselves are wrong */
    int right_there; /* the rerun's own check computed the right values (every compared
                        element right, nothing written outside): the code is right under the
                        emulator alone, and what differs on a GPU is to say */
} fault_report;

/* One check, decided and scored: everything its line and its results.json entry say. */
typedef struct check_report {
    const lab_info *lab;
    const lab_check *check;
    const char *run_name;        /* as run: under the emulator, the emulated size */
    const char *name;            /* as shown: a hidden check's with the size the seed drew */
    const check_decision *d;     /* its verdict is the scored one (s->v) */
    const check_score *s;
    const child_outcome *out;
    const record_list *records;  /* the check's records */
    const char *log_path;        /* its log, or "" when it did not run */
    const char *where;           /* the WHERE line, or "" */
    const record *device;        /* the harness's greeting's device record */
    double threshold;
    const char *estimate;        /* with no GPU, the speed estimated on a named GPU, or "" */
    const fault_report *fault;   /* its fault's rerun on the emulator (nothing said: "" fields) */
    const fault_check *faults;   /* its faults' reports, read once (fault.h): the terminal, and
                                    results.json's "fault", render them */
} check_report;

#endif
