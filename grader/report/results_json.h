/* results_json.h - TRUSTED, NO GPU: a grading run's results.json, everything needed to regrade
 * it (the batch's exports, ../report/exports.h, read it back). Written to a temporary file
 * beside it and renamed over it when whole: a stopped run leaves the last one as it was.
 * Messages are kept as the student saw them (shown.h). */
#ifndef REPORT_RESULTS_JSON_H
#define REPORT_RESULTS_JSON_H

#include "report.h"
#include "../plan/config.h"
#include "../../common/json.h"

#include <stdio.h>

typedef struct results_file {
    json_writer w;
    FILE *f;
    char tmp[1024];  /* the temporary file, until results_close */
    char path[1024]; /* results.json */
} results_file;

/* Open the temporary file and write the run's heading (schema, start time, mode, seed, the
 * student's folder as shown, the built objects' folder). Exits with a message on failure. */
void results_open(results_file *r, const char *path, const char *mode, const char *seed,
                  const char *student, const char *student_objects);

/* The course config's overrides in force. */
void results_overrides(json_writer *w, const config *cfg);

/* A lab's entry up to its checks (its rules, and what its build left), then its checks. */
void results_lab_begin(json_writer *w, const lab_info *lab, const score_rules *rules,
                       double timeout, const build_report *b);

/* One check's entry (report.h). */
void results_check(json_writer *w, const check_report *r);

/* A lab's seconds: its whole wall time, its WHERE hint's, its start in the run's harness (the
 * `lab` line answered: its problem loaded, its student's worker started; a harness started for
 * it too where none ran), and at its end its workers ended in the harness (`end`: the NVIDIA
 * driver's teardown of their GPU contexts and memory) and the GPU's other programs read
 * (nvidia-smi). No verdict reads them: tests/gpu/scaling.sh's table of where a student's
 * seconds go. */
typedef struct lab_close_times {
    double seconds, where_s, start_s, stop_s, neighbours_s;
} lab_close_times;

/* The lab's end: after its checks, a refusal met at run time (or ""), the GPU's other programs
 * ("" for none), its score (and its correctness checks' count), its seconds, and whether it
 * was started (b->started: "not_started" is "" for work, else "missing" or "skeleton", with
 * the words the report says). */
void results_lab_end(json_writer *w, const char *refused_at_run, const char *neighbours,
                     const lab_score *score, const lab_close_times *t, const build_report *b);

/* The run's totals and exit status; then the file is renamed into place (exits on failure).
 * `speed_graded` false (no GPU) says that score and max are no grade: the correctness counts
 * are what was graded. */
void results_close(results_file *r, const totals *t, int status, int interrupted);

#endif
