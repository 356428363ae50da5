/* compare.h - check a kernel's output element by element and keep a counterexample.
 *
 * Two rules, one report:
 *   exact  - bit-for-bit equality, for labs that only move data (copy, transpose).
 *   close  - |got - expected| <= tol * scale, for float arithmetic checked against a
 *            double-precision CPU reference; `scale` is the magnitude the error may grow
 *            with (|expected| by default, or the sum of |terms| for sums and products).
 * NaN or Inf where a finite value is expected is always wrong. Every element is compared:
 * the report counts all bad elements and remembers the first. */
#ifndef COMMON_COMPARE_H
#define COMMON_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct compare_report {
    size_t n;           /* elements compared */
    size_t n_bad;       /* elements that broke the rule */
    size_t first_bad;   /* index of the first bad element; valid only if n_bad > 0 */
    double got;         /* value found at first_bad */
    double expected;    /* value expected at first_bad */
    double allowed;     /* largest |got - expected| allowed at first_bad (0 for exact) */
    double worst_ratio; /* max over elements of |got - expected| / allowed (0 if exact or none) */
} compare_report;

/* Bitwise comparison of two float arrays (a copied NaN matches only the same NaN bits). */
void compare_exact_f32(const float *got, const float *expected, size_t n, compare_report *r);

/* Element i is right when |got[i] - expected[i]| <= tol * scale_i + abs_floor, where scale_i
 * is scale[i], or |expected[i]| when scale is NULL. */
void compare_close_f32(const float *got, const double *expected, const double *scale, size_t n,
                       double tol, double abs_floor, compare_report *r);

/* Fold `part` (a later slice of the same output) into `total`; first_bad keeps the lowest
 * index, so reports of rows or chunks compared separately read as one. `offset` is the
 * index of part's element 0 in the whole output. */
void compare_merge(compare_report *total, const compare_report *part, size_t offset);

/* One line for the student: "3 of 1089 elements wrong; first at index 34 (row 1, col 1):
 * got 1.5, expected 2.25". Pass cols > 0 to show a row-major (row, col); 0 for a flat index. */
void compare_describe(const compare_report *r, size_t cols, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
