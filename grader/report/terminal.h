/* terminal.h - TRUSTED, NO GPU: the terminal table of a grading run (make grade, make bench):
 * one line per check, the hints under a failing one, `Score: N/M`. Every text that may come from
 * a student (their output, the compiler's diagnostics of their file, names a record gives) is
 * shown as data (common/text.h), and paths as the student knows them (shown.h). */
#ifndef REPORT_TERMINAL_H
#define REPORT_TERMINAL_H

#include "report.h"

/* Colour on a terminal that wants it (not NO_COLOR, not TERM=dumb). */
void terminal_init(void);

/* "OK", "FAIL", "SKIP", "ERROR". */
const char *verdict_word(verdict v);

/* "Grading STUDENT on the GPU. Hidden cases use seed ...": the run's first line. */
void terminal_run_begin(const char *student, const char *mode, const char *seed);

/* The lab's heading, and what its build left when it cannot be run (report.h). */
void terminal_lab_begin(const lab_info *lab, const char *expected);
void terminal_build(const build_report *b);

/* The machine cannot isolate student code and isolation is required (the greeting's detail). */
void terminal_unisolated(const char *detail);

/* A check's line, and under a failing one its hint, its output or fault, its WHERE line. */
void terminal_check(const check_report *r);

/* The lab's end: a feature the emulator refused at run time (or ""), the other programs
 * that used the GPU (or NULL), its score: on a GPU its points; with no GPU (`emu`) its
 * correctness checks, and that speed was not graded; a lab not started (b->started) says so. */
void terminal_lab_end(const lab_info *lab, const char *refused_at_run, const char *neighbours,
                      const lab_score *score, const build_report *b, int emu);

/* The run's end: the tamper-proof note, `Score:` and the exit status (or "Not graded"). With no
 * GPU (t->speed_graded 0) there is no score: the line says so and gives the correctness
 * checks passed (and their points, where a course config gives them some). */
void terminal_run_end(const totals *t, int unisolated, int status, const char *json);

/* A log's last `lines` lines before its line `upto` (-1: to its end), under a margin. */
void print_log_tail_upto(const char *path, int lines, long upto);
void print_log_tail(const char *path, int lines);

/* The build's errors (every line of them under the log's margin), and the log's name. */
void print_build_errors(const char *log_path);

#endif
