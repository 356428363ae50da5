/* verdict_parts.h - TRUSTED, NO GPU: what verdict.c and speed_verdict.c share (private to
 * grader/decide/). verdict.c calls speed_verdict.c, never the other way. */
#ifndef GRADER_DECIDE_VERDICT_PARTS_H
#define GRADER_DECIDE_VERDICT_PARTS_H

#include "decision.h"
#include "../lab.h"
#include "../wire/records.h"

#include <stdarg.h>
#include <stdio.h>

/* d's verdict v and its message, printf-style. */
static inline void verdict_set(check_decision *d, verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void verdict_set(check_decision *d, verdict v, const char *fmt, ...)
{
    va_list ap;
    d->v = v;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
}

/* speed_verdict.c: a speed check's verdict: its figures from the records, then evidence other
 * than the ratio, then the ratio against the pass mark, with notes. */
void decide_speed(const lab_info *lab, double threshold, const record_list *l,
                  check_decision *d);

#endif
