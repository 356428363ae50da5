/* fault_rerun.h - TRUSTED, NO GPU (the driver's side): a check in which the student's code
 * faulted on the GPU (an illegal or misaligned address, a trap, a device-side assert, a launch
 * failure, a crash of its process, a write past its output), or gave wrong values (which a read
 * out of bounds or a race the GPU ran through may explain), run once more on the CPU emulator's
 * build of the lab, in grading's sandbox, so that its report can name the student's file and
 * line, the kernel, the block and the thread. A GPU says only which error ended the call.
 *
 * Why the emulator and not compute-sanitizer: a sanitizer follows the process it starts and
 * talks to it over a TCP port, and a student's process may open no socket but the one the
 * grader gives it (grader/sandbox/seccomp.c), in a network namespace of its own: the sanitizer
 * cannot reach into the sandbox, and the sandbox is not loosened for it. `make sanitize` runs
 * it on the student's own labs/, outside grading.
 *
 * Help, never a verdict: the rerun's records are read by no verdict (the driver asks them only
 * whether the rerun's values came out right, to say so), its report is shown as data and only
 * its lines at the student's own files (fault_rerun_report), and the emulated
 * harness runs with isolation required (no student code outside a sandboxed worker), under the
 * same policy and view as make grade's WHERE count. */
#ifndef GRADER_FAULT_RERUN_H
#define GRADER_FAULT_RERUN_H

#include "emu_harness.h"
#include "../wire/records.h"
#include "../sandbox/sandbox.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What ended a check: the name of a fault of the student's own code that a rerun can place
 * (a CUDA error of a kernel, its process's crash, or FAULT_RERUN_OUTSIDE: a write outside its
 * output that the guard bytes caught after the call), FAULT_RERUN_WRONG (a correctness
 * check's wrong values, which a read out of bounds or a race may explain: the rerun looks for
 * one), or NULL (nothing the student's code did wrong, the reference's or the harness's error,
 * a hang, a process that could not start, an error that means the machine cannot run it, or a
 * GPU error no kernel line explains). */
#define FAULT_RERUN_OUTSIDE "a write outside the output"
#define FAULT_RERUN_WRONG "wrong values"
const char *fault_rerun_kind(const record_list *l);

/* One rerun: what the driver gives, and the files it makes (all under `logs`). */
typedef struct fault_rerun {
    /* in */
    const char *harness, *worker, *student, *reference; /* the emulated build's */
    const char *logs;       /* the report folder */
    const char *lab;        /* the lab's name */
    int check;              /* the check's index in the lab's table */
    unsigned long long seed;/* the run's seed: the same hidden sizes */
    double timeout_s;       /* the emulated check's limit */
    sandbox_places places;  /* hidden from the worker, as grading hides them */
    /* out (fault_rerun_prepare) */
    char input[1024];       /* <logs>/<lab>.<N>.emu.cmd: the one command, the harness's stdin
                               (the driver removes it and replies once the run ended) */
    char log[1024];         /* <logs>/<lab>.<N>.emu.log: what the code printed, the report */
    char records[1024];     /* <logs>/<lab>.<N>.emu.records: kept, read by no verdict */
    char replies[1024];     /* <logs>/<lab>.<N>.emu.out: the harness's greeting and reply */
    char harness_log[1024]; /* <logs>/<lab>.<N>.emu.harness.log: the harness's own notes */
    char *argv[64];         /* the emulated harness's command line, NULL-ended */
} fault_rerun;

/* Fill r's files and argv from its inputs, and write its command file. 0, or -1 with the
 * reason in why (the emulated build missing, a path too long). */
int fault_rerun_prepare(fault_rerun *r, char *why, size_t why_len);

/* Run r (its inputs filled; its places are e's, emu_places) on the emulated build e: prepared
 * (fault_rerun_prepare), then the emulated harness run alone, in the harness's view and
 * grading's sandbox, with the environment of e's harness for a device like dev (emu_env), for
 * at most r->timeout_s and 10 s more; its command and replies removed after (the command holds
 * the seed). 0 with *seconds and *timed_out, or -1 with the reason in why. */
int fault_rerun_go(fault_rerun *r, const emu_build *e, const record *dev, double *seconds,
                   int *timed_out, char *why, size_t why_len);

/* The emulator's report that starts at line `from` of a file (a check's log, or the report
 * file of the emulator's own channel beside it, <log>.report: the report a check shows is the
 * channel's wherever the check ran with one, grader/harness/worker_lifecycle_trusted.cu), said at
 * the student's line: its first line ("cuda-emu: error: WHAT in kernel K, block (x,y,z),
 * thread (x,y,z)": a device-side assert, a trap, a misaligned address, a race ...), then its
 * indented lines that name a place in the student's files (fault_rerun_mine) or no place at
 * all (what was expected, what to try), at most six; a line at places in other files alone
 * (the grader's, the emulator's, one the student's code names to have it printed) is left out.
 * It is still text from the student's process (the emulator runs there), so each line goes to
 * `line`, which the driver prints under the log's margin as data, under a heading that says
 * whose process wrote it. Returns how many reports the file holds from `from` on (0: none). An
 * address sanitizer's report is the driver's print_fault's. */
int fault_rerun_report(const char *log, long from, const char *rel,
                       void (*line)(const char *text));

/* 1 if PATH (its first n bytes: a place's file, as a report names it) is one of the student's
 * files: the lab file `rel` (01-coalescing/coalescing.cu), by that path or its base name,
 * alone or after a '/', or a helper of theirs in the lab's folder as compiled
 * (06-transpose/tile.cuh, 06-transpose/kern/op.cuh; no "..": never out of it). */
int fault_rerun_mine(const char *path, size_t n, const char *rel);

/* The line (from 0) where the first of those reports starts in a log, or -1 if it holds none:
 * what the code printed before anything of a report's form is the lines above (the driver
 * shows those as the code's output; what follows, up to the last report, stays in the log). */
long fault_rerun_first(const char *log);
/* The line where the last of them starts (the one shown from a log of a run without the
 * emulator's channel), or -1. */
long fault_rerun_last(const char *log);

/* 1 if the rerun whose records file is `records` (fault_rerun.records) computed the right
 * values: its student's calls were compared and none gave a wrong element or touched a guard,
 * and no error ended it. What the driver says under a check whose GPU values were wrong. */
int fault_rerun_values_right(const char *records);

#ifdef __cplusplus
}
#endif
#endif
