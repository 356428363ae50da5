/* where.h - TRUSTED, NO GPU (the driver's side): make grade's WHERE line.
 *
 * The WHERE line of a lab: the place in the student's file that costs the most against the
 * lesson, from the CPU emulator's counts (what make explain counts, down to one line:
 * where_count, then where_render, in a process of this program's own). Help, not grading: the
 * whole run's hints share o->budget seconds of waiting, and a hint that cannot be had
 * says where to look instead.
 *
 * The count starts once the lab's first check has passed, beside the checks that follow, at
 * the lowest CPU priority (it runs on the CPUs, and under the sandbox's worker policy: the GPU
 * sees none of it), since it can take as long as checking and timing together do (lab 07's
 * skeleton: a second or two of emulated barriers). On a GPU, a speed check short of its mark
 * then waits only for what is left of it, and a lab whose speed passed (or whose code failed
 * a check) stops it unread; under the emulator, which times nothing and wants the line
 * whenever every correctness check passes, a lab whose code failed a check stops it unread.
 * The waiting is what the budget counts. Under the emulator a later lab's count may start
 * ahead, during an earlier lab's checks (where_ahead, below).
 *
 * Each count is the lab's emulated harness (emu_harness.h) in a process of the driver's own;
 * the line is rendered by make explain's own explain.awk, run by execv (no shell). The harness
 * keeps counts between runs (grader/harness/profile_trusted.cu): the reference's beside its
 * object (<labdir>/<lab>/reference.counts.*), and the student's at the first size beside the
 * student's object (<student objects>/<lab>/student.counts.*), each under a key naming the
 * harness, the lab's problem.so, the worker program, the object counted, the emulated SM count,
 * the check and the size; the student's only once its counted call was verified, never the
 * second size's (drawn from the run's secret seed: counted every run). A kept count prints the
 * same sections and line as a fresh one. */
#ifndef GRADER_FEEDBACK_WHERE_H
#define GRADER_FEEDBACK_WHERE_H

#include "emu_harness.h"
#include "../lab.h"
#include "../wire/records.h"

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where make explain's renderer lies (explain.awk with the readers it uses, estimate-limits.tsv),
 * and each lab's counter table (grader/labs/NN-name/explain.tsv). */
#define WHERE_TOOLS "grader/feedback"
#define WHERE_TABLES "grader/labs"

/* A run's WHERE lines: the emulated build they count on, where their files go, and their
 * budget. */
typedef struct where_setup {
    emu_build emu;
    const char *logs;    /* the report folder */
    const char *student; /* the tree graded (its file is named in the line) */
    int on;              /* 1: make grade asked for WHERE lines (--where-budget) */
    double budget;       /* seconds all of a run's WHERE lines may wait */
    unsigned long long second_draw; /* the estimate's second size's draw, from the run's secret
                                       seed (its 4 low bits are the harness's --second-draw): near
                                       the lab's second size, not at it; 0: the table's */
} where_setup;

/* One lab's WHERE count: its files, all under the report folder (logs). */
typedef struct where_files {
    char folder[96];      /* the lab's folder name, NN-name */
    char dir[1024];       /* <logs>/<lab>.where: the counts and what the processes printed */
    char line[1100];      /* <logs>/<lab>.where.txt: the line */
    char log[1100];       /* <logs>/<lab>.where.log: why there is none */
    char counts[1100], sections[1100], harness_log[1100], workers[1100]; /* in dir */
    char estimate[1100];  /* in dir: the speed estimate of each speed check (estimate.h) */
    char counts2[1100];   /* in dir: with no GPU, the counts at the lab's second size, which
                           * the estimate compares with the first (none for a lab that gets no
                           * estimate: estimate-limits.tsv) */
} where_files;

typedef struct where_job {
    pid_t pid;       /* the count running, or 0 */
    double started;  /* when */
    where_files w;   /* its files */
    char tmp[PATH_MAX]; /* its TMPDIR (scratch_make's): the harness it runs makes its own
                         * there, which dies unremoved with it when it is killed */
} where_job;

/* Start the lab's count in a process of its own (at the lowest CPU priority when nice_it): the
 * student's and the reference's calls counted on the emulator, then rendered; with no GPU, for
 * a lab that gets an estimate, both counted again at the lab's second size and the speed
 * estimate made from the counts of both. */
void where_start(const where_setup *o, const lab_info *lab, const record *dev, int nice_it,
                 where_job *j);

/* A count started beside the checks and not wanted (the lab's speed passed, or a check failed):
 * stopped. */
void where_drop(where_job *j);

/* The WHERE line into line (len bytes), from the count started beside the checks (*j, if
 * running) or from one started now; "" when the run asked for none. */
void where_hint(const where_setup *o, const lab_info *lab, const record *dev, where_job *j,
                char *line, size_t len);

/* Seconds of the run's budget not yet spent waiting. */
double where_left(const where_setup *o);

/* Under the emulator, the counts of the labs still to grade, started ahead: a count runs on
 * the CPU the checks leave free (the checks are one process at a time), and a lab whose count
 * took longer than its own checks made the run wait for it (the skeletons on two cores: 1.3
 * to 2.2 s of a warm run, labs 05 and 07; 5.4 s of a first run, which counts the references
 * too). So once the lab being graded has no count running, and none is to start for it
 * (where_ahead_go's `own`), the next built lab's count starts, one at a time, at the lowest
 * priority; that lab takes it at its start (where_ahead_take) as the count it would have
 * started beside its checks, the same count of the same build (its line the same), and drops
 * it as that one is dropped (a check failed). Not on a GPU, whose speed checks time beside
 * their own lab's count alone. */
typedef struct where_ahead {
    const lab_info *const *labs; /* the run's labs, in the order graded */
    const int *built;            /* built[i]: lab i's build is whole (its count may start) */
    int n, next;                 /* next: the first lab whose count has not started ahead */
    where_job *jobs;             /* jobs[i]: lab i's count started ahead (pid 0: none) */
} where_ahead;

void where_ahead_begin(where_ahead *a, const lab_info *const *labs, const int *built, int n);
/* Between two checks of lab `cur`: own is its count (pid 0: none started), own_pending 1 while
 * one is still to start beside its checks. */
void where_ahead_go(const where_setup *o, where_ahead *a, const lab_info *cur,
                    const where_job *own, int own_pending, const record *dev);
/* Lab `lab` begins: its count started ahead, if any, into *j (which is empty). */
void where_ahead_take(where_ahead *a, const lab_info *lab, where_job *j);
/* The run's end: every count started ahead and not taken, stopped. */
void where_ahead_end(where_ahead *a);

#ifdef __cplusplus
}
#endif
#endif
