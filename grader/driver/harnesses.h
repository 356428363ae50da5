/* harnesses.h - TRUSTED, NO GPU: a lab's harness as a process of the driver, one per lab, one
 * command per check (private to grader/driver/). At most two are alive at once: the lab's, and
 * the next lab's started ahead (schedule.h); ending one spares the other. */
#ifndef GRADER_RUN_HARNESSES_H
#define GRADER_RUN_HARNESSES_H

#include "driver.h"
#include "../decide/verdict.h"
#include "../wire/child.h"

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct harness_proc {
    pid_t pid;   /* 0 when not running */
    FILE *cmd;   /* its stdin: one command per line */
    int reply;   /* its stdout: its greeting (two lines), then "done N" per check */
    int greeted; /* lines of its greeting read so far (2: all; later lines are never read as
                    one: by then student code may be in it, under the fallback) */
    char tmp[PATH_MAX]; /* its TMPDIR, made for it and removed when it ends; "" if none */
} harness_proc;

/* Start lab's harness into h (--serve; --ahead: started before its lab is graded). 0, or -1. */
int harness_start(const options *o, const lab_info *lab, harness_proc *h, int ahead);

/* Stop the harness and everything it started (its workers die with it: PDEATHSIG). The other
 * harness alive (the lab's, or the one started ahead) lives on. */
void harness_stop(harness_proc *h, child_outcome *o);

/* One read of harness h's replies into buf (cap bytes, *got of them held), and every whole line
 * read so far taken: its greeting's two lines (greeting_take into g, once), then a line that is
 * `want` (or, `prefix`, starts with it). 1 once such a line was taken, 0 if none yet (any
 * other line is dropped), -1 if nothing could be read (the harness ended). */
int harness_read_reply(const options *o, harness_proc *h, greeting *g, char *buf,
                              size_t cap, size_t *got, const char *want, int prefix);

/* Run check `i` through the harness; fills o as if the check had been a process of its own
 * (exited 0 when the harness answered "done"). */
void harness_check(const options *o, const lab_info *lab, harness_proc *h, greeting *g,
                          int i, double threshold, double timeout, const char *records,
                          const char *log_path, child_outcome *out);

#endif
