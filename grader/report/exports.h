/* exports.h - one student's grade, from the grader's results.json, in the formats others read.
 *
 * Everything here is written from structured data (the driver's results.json, read with
 * common/json_read.h), never from the text a student saw. Nothing written here holds a
 * time of day or a duration, so two runs with the same seed write the same bytes. Text that
 * may come from a student (names, messages) is rendered visible first (common/text.h), then
 * escaped for the format: no export shows a control character or a byte that is not UTF-8.
 *
 *   gradebook row   the numbers a gradebook needs: per-lab score and max, total, exit status,
 *                   and a one-line reason for every point lost
 *   CSV             RFC 4180, CRLF line ends, one line per record, spreadsheet formulas
 *                   neutralised
 *   JSON Lines      one object per student, names exactly as they are
 *   Gradescope      results.json of the Gradescope autograder specification
 *   JUnit XML       one <testsuite> per lab
 *   Markdown, HTML  the student's report; the HTML page is self-contained, with an inline
 *                   SVG chart of each lab's speed ratio against its threshold */
#ifndef GRADER_REPORT_EXPORTS_H
#define GRADER_REPORT_EXPORTS_H

#include <stdio.h>

#include "../../common/json_read.h"
#include "../../common/text.h"
#include "../lab.h"

#define ROW_MAX_LABS 64

/* Work not submitted, per lab (grade_row.absent). */
enum {
    ABSENT_NO_FILE = 1,   /* no NN-name/name.cu where work is looked for (the top of the
                             submission, or a labs/ folder at any depth) */
    ABSENT_SKELETON = 2,  /* the file is byte for byte the workbook's skeleton */
    ABSENT_MISPLACED = 3, /* a file that looks like the lab's (name.cu, or a .cu file naming the
                             lab) elsewhere: named with where it belongs, not graded */
    ABSENT_NOT_STARTED = 4 /* handed in, but the skeleton with comments and white space aside:
                             the grader's own finding (results.json's not_started) */
};

/* The word the gradebook's missing column and gradebook.jsonl give each case ("01:no-file"). */
const char *absent_word(int absent);

#define ROW_REASON_MAX 4096 /* (a lab's first loss, and its fault's line, for every lab) */

typedef struct grade_row {
    char *name;                      /* the student's folder name, exact bytes (owned) */
    char id[40];                     /* the safe folder name under OUT/students/ */
    int selected[ROW_MAX_LABS];      /* 1 for each lab (registry order) this run graded */
    int lab_score[ROW_MAX_LABS];     /* points earned per lab; meaningful where selected */
    int lab_max[ROW_MAX_LABS];       /* points possible per lab; meaningful where selected */
    int total, max;                  /* sums over the selected labs */
    int exit_status;                 /* 0 full marks, 1 a point lost, 2 a check could not run */
    int absent[ROW_MAX_LABS];        /* why lab k holds no work of the student's (ABSENT_*),
                                        0 where it does; the lab is still graded (as the
                                        skeleton), and every export names it */
    const char *absent_detail[ROW_MAX_LABS]; /* NO_FILE: what the submission held ("a.txt,
                                        lab2/x.cu (+3 more)", "" when empty); MISPLACED: the
                                        file found; NULL where none is known (not owned) */
    int speed_graded;                /* 0: no GPU timed anything (the CPU emulator): no total is
                                        a grade, the exports say so; 1 graded on a GPU */
    int correct_passed, correct_checks; /* correctness checks passed, and graded */
    int correct_score, correct_max;  /* their points (0 unless a course config gives some) */
    char state[16];                  /* "graded", "refused", or "missing" (no result yet) */
    int tamper_proof;                /* 1 graded with student code isolated, 0 graded where it
                                        could not be (the grade is not tamper-proof), -1 no
                                        grade or unknown */
    char reason[ROW_REASON_MAX];     /* why points were lost, or why it was not graded */
} grade_row;

/* Why lab k of row earns nothing for want of work, into buf ("" if it has work): "lab 07 not
 * handed in (...)", "lab 07 not started (...)", "lab 07 misplaced: ... move it to ...". */
void row_absent_text(const grade_row *row, int k, char *buf, size_t len);

/* Fill row's numbers and reason from a results.json tree (labs matched by name). Labs the
 * run selected but the report lacks count as 0 of lab_max (the caller's table maximum).
 * `grade_status` is grade.sh's exit status, used where the report has none. */
void row_from_results(grade_row *row, const jv *results, int grade_status);

/* A row's total as a gradebook shows it, into buf: "12/50"; with no GPU "" (no grade), or the
 * correctness points where a course config gives some ("9/10"). Likewise a lab's. */
void row_total_text(const grade_row *row, char *buf, size_t len);
void row_lab_text(const grade_row *row, int k, char *buf, size_t len);

/* --- the gradebook files --- */
void csv_header(FILE *f);
void csv_row(FILE *f, const grade_row *row);
/* Write one CSV field: its text rendered visible (common/text.h: a newline, CR, tab, escape
 * or byte that is not UTF-8 shows as \n, \r, \t, \x1b, \xff, so every record is one line);
 * a leading = + - @ tab or CR gets a single quote in front (so a spreadsheet never runs it as
 * a formula); quoted when it holds a comma or a quote, each quote doubled. */
void csv_field(FILE *f, const char *s);
void jsonl_row(FILE *f, const grade_row *row);

/* A check's fault (results.json's "fault" object: grader/fault/fault.h read the report once)
 * as one line, rendered visible (common/text.h), into buf: "fault: KIND at FILE:LINE in kernel
 * K, block (x,y,z), thread (x,y,z). Hint: ..." (the hint with_hint only); "" when the check has
 * none. Every format shows it under the check (escaped for the format), and the gradebook's
 * reason, without the hint, beside its first loss (exports_fault.c). */
void export_fault_text(const jv *check, int with_hint, char *buf, size_t len);

/* --- one student's exports; results may be NULL (refused or no report) --- */
void write_gradescope(FILE *f, const grade_row *row, const jv *results);
void write_junit_suites(FILE *f, const grade_row *row, const jv *results);
void write_markdown(FILE *f, const grade_row *row, const jv *results);
void write_html(FILE *f, const grade_row *row, const jv *results);

#endif
