/* fault.h - TRUSTED, NO GPU: a fault report of the student's code, read once, as data.
 *
 * A check's fault is reported by one of three voices, each in a file the driver names: an
 * address or undefined-behaviour sanitizer's report in the check's log (the emulator's build
 * has them; the emulator adds a line naming the kernel, block and thread), the CPU emulator's
 * own report ("cuda-emu: error: WHAT in kernel K, block (x,y,z), thread (x,y,z)", then indented
 * lines), on its own channel beside the log (<log>.report) or in the log, or either of them in
 * the log of a GPU fault's rerun on the emulator (grader/feedback/fault_rerun.h; a write the
 * guard bytes caught is run there too). fault_parse reads such a file once into a fault_record:
 * its kind, its places in the student's files, the kernel, block and thread, the hint, the key
 * that folds one bug's checks into one report, and the report's lines at the student's line as
 * a reader is shown them. Every text in it comes from the student's process (the emulator and
 * the sanitizers run there): it is data, made visible and escaped by whoever renders it (the
 * terminal, results.json, the exports: grader/report/). Nothing here keeps state between calls.
 *
 * Help, never a verdict: no verdict or point reads a fault_record. */
#ifndef GRADER_FAULT_FAULT_H
#define GRADER_FAULT_FAULT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FAULT_LINES 12      /* the most lines of a report shown */
#define FAULT_LINE_MAX 2048 /* one line of it, as read */

typedef struct fault_record {
    int found;            /* 1: a report was found, and the fields below hold it */
    int sanitizer;        /* 1: a sanitizer's report (AddressSanitizer, UBSan); 0: the emulator's */
    int channel;          /* 1: read from the emulator's own channel (<log>.report) */
    char path[1100];      /* the file the report was read from (the log, or the channel's) */
    long at;              /* the report's first line in that file (from 0) */
    long output_upto;     /* in the log: where what the code printed ends (its first report's
                             line, a sanitizer's or the emulator's), or -1: the log's end */
    char kind[300];       /* "data race on shared memory", "AddressSanitizer: heap-buffer-overflow
                             READ", "runtime error: store to null pointer" */
    char places[300];     /* its places in the student's files (the lab file, a helper of theirs
                             in its folder), sorted, joined with ", ": "tree/06-transpose/tile.cuh:15,
                             tree/06-transpose/tile.cuh:22"; "" when it names none */
    char file[256];       /* the first place's file, as the report names it, or "" */
    int line;             /* ... and its line, or 0 */
    char kernel[256];     /* the kernel the report names, or "" */
    char block[64];       /* "(x,y,z)", or "" */
    char thread[64];      /* "(x,y,z)", or "" */
    char hint[400];       /* what to try: the emulator's line of advice (its last line under
                             the report naming no place), or the grader's for a sanitizer's
                             overflow; "" when none */
    char fold[1024];      /* "kind|places": one bug's key (a check whose fault has the same key
                             as one above it in the lab is that bug again); "" without places */
    int no_frame;         /* a sanitizer's report none of whose frames is in the student's files */
    int n_lines;          /* the report's lines at the student's line, as a reader is shown them */
    char lines[FAULT_LINES][FAULT_LINE_MAX];
} fault_record;

/* The grader's advice under a sanitizer's heap-buffer-overflow (fault_record.hint). */
#define FAULT_OVERFLOW_HINT "an index past the end (or before the start) of a buffer, at the " \
    "line above: check the test that guards it (< n, not <= n) and how the index is computed"

/* Read the report of the log at `log` into f (f->found 0: none). `rel` is the lab file as the
 * student's tree names it ("01-coalescing/coalescing.cu"). Where the check ran with the CPU
 * emulator's own channel (<log>.report beside a <...>.log), the channel decides: its first
 * report, or a sanitizer's report that ended the process (the last in the log), or none,
 * whatever the code printed. Without it (a run in the harness's own process), the log's first
 * sanitizer report or its last emulator report; `on_gpu` 1: a check's own log on a GPU holds
 * none (no emulator ran there; a rerun's <...>.emu.log is read). */
void fault_parse(fault_record *f, const char *log, const char *rel, int on_gpu);

/* A failing check's faults, each read once: its own log's (where its process faulted) and its
 * rerun's on the emulator (where one ran); `shown` is the one its report names (the first of
 * the two that names a place in the student's files, else the first found), or NULL. */
typedef struct fault_check {
    int faulted;        /* the check's own run faulted (its log is read for the report) */
    fault_record own;   /* its log's report */
    fault_record rerun; /* its rerun's log's report */
    const fault_record *shown;
} fault_check;

/* Fill c: `log` the check's log ("" when it did not run), `faulted` whether its run faulted (a
 * crash, an error record, a time-out, a non-zero exit), `rerun_log` its rerun's log or "". */
void fault_of_check(fault_check *c, const char *log, int faulted, const char *rerun_log,
                    const char *rel, int on_gpu);

/* The emulator's report that starts at line `from` of a file, said at the student's line: its
 * first line ("cuda-emu: error: WHAT in kernel K, block (x,y,z), thread (x,y,z)": a device-side
 * assert, a trap, a misaligned address, a race ...), then its indented lines that name a place
 * in the student's files (fault_mine) or no place at all (what was expected, what to try), at
 * most six; a line at places in other files alone (the grader's, the emulator's, one the
 * student's code names to have it printed) is left out. Each goes to `line(text, ctx)`.
 * Returns how many reports the file holds from `from` on (0: none). */
int fault_emu_report(const char *log, long from, const char *rel,
                     void (*line)(const char *text, void *ctx), void *ctx);

/* 1 if PATH (its first n bytes: a place's file, as a report names it) is one of the student's
 * files: the lab file `rel` (01-coalescing/coalescing.cu), by that path or its base name,
 * alone or after a '/', or a helper of theirs in the lab's folder as compiled
 * (06-transpose/tile.cuh, 06-transpose/kern/op.cuh; no "..": never out of it). */
int fault_mine(const char *path, size_t n, const char *rel);

/* The line (from 0, whole lines of any length, as common/text.h's text_log_line reads them and
 * the terminal shows them) where the first of the emulator's reports starts in a log, or -1;
 * the line where the last starts, or -1. */
long fault_first(const char *log);
long fault_last(const char *log);

#ifdef __cplusplus
}
#endif
#endif
