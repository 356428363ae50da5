/* verdict_parts.h - TRUSTED, NO GPU: what verdict.c and speed_verdict.c share (private to
 * grader/decide/). */
#ifndef GRADER_DECIDE_VERDICT_PARTS_H
#define GRADER_DECIDE_VERDICT_PARTS_H

#include "verdict.h"

/* d's verdict v and its message, printf-style. */
void verdict_set(check_decision *d, verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* speed_verdict.c: a speed check's verdict: its figures from the records, then evidence other
 * than the ratio, then the ratio against the pass mark, with notes. */
void decide_speed(const lab_info *lab, double threshold, const record_list *l,
                  check_decision *d);

#endif
