/* check_line.h - the one command the driver sends a lab's harness per check: one line, written
 * by check_line_format alone (grader/driver/driver.c) and read by check_line_parse alone
 * (grader/harness/harness.cu).
 *
 * The line is a record of results.h's kind, type `check`, its values percent-escaped, so a
 * path with spaces, `=`, `%`, newlines or bytes that are not UTF-8 survives it:
 *
 *   check index=3 seed=0x5eed threshold=0.5 cap_s=15 timeout_s=300 records=PATH log=PATH
 *
 * Reading is strict: a line is accepted only if it is exactly what check_line_format writes for
 * the values read from it (every field once, in that order, numbers as written), so no two
 * spellings of one command exist and nothing the encoder cannot write is ever taken. */
#ifndef GRADER_CHECK_LINE_H
#define GRADER_CHECK_LINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A check's command from the driver. */
typedef struct check_cmd {
    int check;                /* the check's index in the lab's table, from 0 */
    unsigned long long seed;  /* the run's secret seed (hidden cases) */
    double threshold;         /* the speed check's pass mark (reference time / student time) */
    double cap_s;             /* the speed check's sampling time cap, seconds */
    double timeout_s;         /* the check's wall-time limit, seconds */
    char records[1024];       /* where the harness writes the check's records */
    char log[1024];           /* where what student code printed goes */
} check_cmd;

/* The longest line check_line_format writes (paths escaped three bytes a byte), with its '\n'. */
#define CHECK_LINE_MAX 7000

/* Write c as one line, ending in '\n', into buf. Returns 0, or -1 (buf untouched beyond its
 * first byte, set to 0) when c cannot be sent: a number that is not finite, a negative index,
 * an empty path, or a line that would not fit in len. */
int check_line_format(const check_cmd *c, char *buf, size_t len);

/* Read one line (with or without its '\n') into *c. Returns 0, or -1 with *why set to a static
 * description of what was wrong. */
int check_line_parse(const char *line, check_cmd *c, const char **why);

/* The command that begins a lab in a harness that serves every lab of a run (harness_labs.cu),
 * written by lab_line_format alone (grader/driver/harnesses.c) and read by lab_line_parse alone,
 * as strictly as a check's:
 *
 *   lab name=NAME problem=PATH student=PATH reference=PATH log=PATH
 *
 * NAME the lab's (its table's name); its problem.so, the student's and the reference's objects,
 * and the lab's harness log, which the harness's stdout and stderr go to from then on. */
typedef struct lab_cmd {
    char name[64];
    char problem[1024];
    char student[1024];
    char reference[1024];
    char log[1024];
} lab_cmd;

/* The longest line lab_line_format writes, with its '\n' (CHECK_LINE_MAX or more). */
#define LAB_LINE_MAX 12800

/* As check_line_format and check_line_parse, for a lab's command. */
int lab_line_format(const lab_cmd *c, char *buf, size_t len);
int lab_line_parse(const char *line, lab_cmd *c, const char **why);

#ifdef __cplusplus
}
#endif
#endif
