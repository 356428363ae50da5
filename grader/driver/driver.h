/* driver.h - TRUSTED, NO GPU: what the driver's files share (private to grader/driver/: the
 * driver's main and grading loop, driver.c; the harness processes, harnesses.c; the next lab's
 * start and the host-link lock, schedule.c; make bench, bench.c; what make left, built.c). */
#ifndef GRADER_RUN_DRIVER_H
#define GRADER_RUN_DRIVER_H

#include "../lab.h"
#include "../wire/folder.h"
#include "../report/report.h"
#include "../sandbox/sandbox.h"

#include <signal.h>
#include <stddef.h>

/* The command line (driver.c, parse_options). */
typedef struct options {
    const char *labdir;   /* directory holding <lab>/harness and <lab>/reference.so */
    const char *student_objs; /* directory holding <lab>/student.so */
    const char *worker;   /* the worker program */
    const char *isolation;/* "on" or "off" */
    const char *variants[64]; /* bench: "lab:name=so name=so ..." */
    int n_variants;
    int require_isolation; /* 1: a run that cannot isolate student code stops (batch grading) */
    const char *mode;     /* "gpu" or "emu" */
    const char *labs;     /* comma-separated lab names or numbers, or NULL for all */
    const char *student;  /* the student directory graded, for the report */
    const char *built;    /* the build's folder (--built: grader/make/grade.mk's GRADE_BUILT), or NULL
                             when nothing was built for this run (everything is taken as built) */
    const char *json;     /* where results.json goes */
    const char *logs;     /* where per-check logs go */
    sandbox_places hidden; /* what student code never sees: this run's places, and the
                              folders a batch adds (--hide); the harness gets them by name */
    unsigned long long seed; /* the run's secret seed */
    int bench;            /* 1: print the bench table instead of grading */
    int list_labs;        /* 1: print the labs --lab selects, one name a line, and stop */
    const char *status_of; /* a results.json whose exit status to print, and stop; or NULL */
    int where;             /* 1: make grade's WHERE hints (where_hint) */
    double where_budget;   /* seconds all of a run's WHERE hints may take */
    const char *where_labdir;  /* the CPU emulator's <lab>/harness and reference.so: --labdir
                                  under emulation, the emulated build beside a GPU's */
    const char *where_student_objs; /* the emulator's <lab>/student.so and source.cu */
    const char *where_worker;  /* the emulator's worker program */
    int paths_submission;  /* 1 (--paths submission, a batch): paths shown as the student's
                              submission has them, the grader's folders left out (shown_text) */
    int fault_rerun;       /* a fault of the student's code run again on the CPU emulator to
                              name its line (check_fault_rerun): 1 on a GPU with the emulated
                              build beside it (--where-labdir), 2 also under emulation
                              (--fault-rerun always: the tests), 0 never (--fault-rerun off) */
} options;

/* Non-zero once grading must not go on (isolation was required and is impossible): the checks
 * left say so. A stop by a signal never returns here: stop.c ends the run there and then.
 * Set in driver.c only (its file-local flag). */
int grading_stopped(void);

/* built.c: what the build left for a lab (lab_build, ../report/report.h); its build log moved
 * into the report folder as <lab>.build.log, and under a GPU, the emulator's build log for the
 * WHERE line as <lab>.where.log. */
lab_build built_lab(const options *o, const lab_info *lab, char *log_path, size_t len);

/* built.c: what an earlier run left in the report folder for a lab graded now (its checks'
 * logs and records, its harness's log, its WHERE count's line and files) removed before this
 * run writes any, so that a lab's files are all from its latest grading; the labs not graded
 * now keep theirs. */
void lab_files_clear(const options *o, const lab_info *lab);

/* built.c: the build's folder, once every lab's status and log is taken: what is left (the
 * marks of grader/make/lab_step.sh and lab_status.sh) goes, and the folder with it. */
void remove_built_dir(const options *o);

/* built.c: the emulator's refusal in a build log (see built.c), into `out` ("" if none). */
void read_refusal(const char *log_path, char *out, size_t len);

/* bench.c: make bench, the table's heading, then each lab's rows. Returns main's exit status. */
int bench_all(const options *o, const lab_info *const *labs, int n);

#endif
