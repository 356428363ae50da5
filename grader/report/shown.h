/* shown.h - TRUSTED, NO GPU: paths as the student knows them, in every line the report shows.
 *
 * A batch grades a copy of the submission in a folder of the grader's, and writes its logs
 * into another: shown_submission registers both, and every line shown (and every message
 * results.json keeps) names the student's file as their submission lays it out
 * (01-coalescing/coalescing.cu) and a log by its own name, the one it has beside the student's
 * report. Whatever the mode, a place in the grader's own sources (an allocation "made at
 * grader/worker/worker_loop_untrusted.cu:155") is said as the grader's. */
#ifndef REPORT_SHOWN_H
#define REPORT_SHOWN_H

#include <stddef.h>
#include <stdio.h>

/* --paths submission: the student's folder and the report folder are cut out of what is shown
 * (each as given and as its real path). */
void shown_submission(const char *student, const char *logs);

/* --paths as-given (make grade): a place the compile names by the file's path inside the
 * compile sandbox (AS_COMPILED, "01-coalescing/coalescing.cu") is shown by the path the student
 * gave (AS_GIVEN, "labs/01-coalescing/coalescing.cu"), which opens from where they ran make:
 * fault and race reports, compiler lines and WHERE lines then say one form. A folder ending in
 * '/' ("06-transpose/" as "labs/06-transpose/") maps every path in it: the student's helper
 * files (06-transpose/kern/op.cuh) shown where the student has them too. */
void shown_place(const char *as_compiled, const char *as_given);

/* `text` with the registered folders cut out and the grader's own source places named as
 * such, into out (cut to len). Returns out. */
const char *shown_text(const char *text, char *out, size_t len);

/* text_put (common/text.h) of shown_text's form of text. */
void put_shown(FILE *f, const char *text);

#endif
