/* compare.c - element-wise comparison with a counterexample. See compare.h. */
#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void report_start(compare_report *r, size_t n)
{
    memset(r, 0, sizeof *r);
    r->n = n;
}

static void note_bad(compare_report *r, size_t i, double got, double expected, double allowed)
{
    if (r->n_bad++ == 0) {
        r->first_bad = i;
        r->got = got;
        r->expected = expected;
        r->allowed = allowed;
    }
}

void compare_exact_f32(const float *got, const float *expected, size_t n, compare_report *r)
{
    report_start(r, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t a, b;
        memcpy(&a, &got[i], 4);
        memcpy(&b, &expected[i], 4);
        if (a != b)
            note_bad(r, i, got[i], expected[i], 0.0);
    }
}

void compare_close_f32(const float *got, const double *expected, const double *scale, size_t n,
                       double tol, double abs_floor, compare_report *r)
{
    report_start(r, n);
    for (size_t i = 0; i < n; i++) {
        const double g = got[i], e = expected[i];
        const double allowed = tol * (scale ? scale[i] : fabs(e)) + abs_floor;
        const double err = fabs(g - e);
        /* written so that NaN in got (err is NaN) counts as bad */
        if (!(err <= allowed) || !isfinite(g)) {
            note_bad(r, i, g, e, allowed);
            r->worst_ratio = INFINITY;
        } else if (allowed > 0 && err / allowed > r->worst_ratio) {
            r->worst_ratio = err / allowed;
        }
    }
}

void compare_merge(compare_report *total, const compare_report *part, size_t offset)
{
    if (part->n_bad && (total->n_bad == 0 || offset + part->first_bad < total->first_bad)) {
        total->first_bad = offset + part->first_bad;
        total->got = part->got;
        total->expected = part->expected;
        total->allowed = part->allowed;
    }
    total->n += part->n;
    total->n_bad += part->n_bad;
    if (part->worst_ratio > total->worst_ratio)
        total->worst_ratio = part->worst_ratio;
}

void compare_describe(const compare_report *r, size_t cols, char *buf, size_t len)
{
    if (r->n_bad == 0) {
        snprintf(buf, len, "all %zu elements right", r->n);
        return;
    }
    char where[64] = "";
    if (cols > 0)
        snprintf(where, sizeof where, " (row %zu, col %zu)", r->first_bad / cols,
                 r->first_bad % cols);
    char allowed[64] = "";
    if (r->allowed > 0)
        snprintf(allowed, sizeof allowed, " (allowed error %.3g)", r->allowed);
    snprintf(buf, len, "%zu of %zu elements wrong; first at index %zu%s: got %.9g, expected %.9g%s",
             r->n_bad, r->n, r->first_bad, where, r->got, r->expected, allowed);
}
