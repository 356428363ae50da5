/* harnesses.h - TRUSTED, NO GPU: the harness as a process of the driver (private to
 * grader/driver/). One harness serves the run's labs one after the other: a `lab` line begins
 * one (its problem, its student's and reference's objects, its log), one `check` line a check,
 * `end` ends it (grader/harness/harness_labs.cu). A harness stopped (a check's time limit, a
 * crash, a lab's end it did not answer) is replaced by a fresh one at the next check, which
 * carries nothing of it; under the fallback (student code in the harness's process) each lab
 * has a fresh one. At most one is alive at a time. */
#ifndef GRADER_RUN_HARNESSES_H
#define GRADER_RUN_HARNESSES_H

#include "driver.h"
#include "../decide/verdict.h"
#include "../wire/child.h"

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

/* Seconds a harness has to end its lab (`end`): its workers killed and reaped, its memory
 * given back (lab 05's pinned arrays the most). */
#define HARNESS_END_S 60.0

typedef struct harness_proc {
    pid_t pid;   /* 0 when not running */
    const lab_info *lab; /* the lab it serves (its `lab` line answered), or NULL */
    int started; /* harness processes started so far in this run (GRADER_COSTS=1) */
    double lab_start_s; /* seconds its `lab` lines took to be answered, since the caller's 0 */
    FILE *cmd;   /* its stdin: one command per line */
    int reply;   /* its stdout: its greeting (two lines), then "lab ready", "done N" per check
                    and "ended" */
    int greeted; /* lines of its greeting read so far (2: all; later lines are never read as
                    one: by then student code may be in it, under the fallback) */
    char tmp[PATH_MAX]; /* its TMPDIR, made for it and removed when it ends; "" if none */
} harness_proc;

/* Start a harness into h (--serve, every lab's), its stderr into lab's harness log until its
 * first `lab` line. 0, or -1. */
int harness_start(const options *o, const lab_info *lab, harness_proc *h);

/* Stop the harness and everything it started (its workers die with it: PDEATHSIG). */
void harness_stop(harness_proc *h, child_outcome *o);

/* The lab h serves is over (`end`, answered "ended"); a harness that does not answer in
 * HARNESS_END_S, ends instead, or holds student code (not isolated) is stopped. */
void harness_lab_end(const options *o, harness_proc *h, greeting *g);

/* One read of harness h's replies into buf (cap bytes, *got of them held), and every whole line
 * read so far taken: its greeting's two lines (greeting_take into g, once), then a line that is
 * `want` (or, `prefix`, starts with it). 1 once such a line was taken, 0 if none yet (any
 * other line is dropped), -1 if nothing could be read (the harness ended). */
int harness_read_reply(const options *o, harness_proc *h, greeting *g, char *buf,
                              size_t cap, size_t *got, const char *want, int prefix);

/* Run check `i` through the harness (one started, and told to begin lab, where needed); fills
 * o as if the check had been a process of its own (exited 0 when the harness answered "done"). */
void harness_check(const options *o, const lab_info *lab, harness_proc *h, greeting *g,
                          int i, double threshold, double timeout, const char *records,
                          const char *log_path, child_outcome *out);

#endif
