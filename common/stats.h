/* stats.h - the statistics behind every speed verdict: medians and their confidence intervals.
 *
 * Timing samples are skewed (a sample can only be slowed by interference, never sped up), so
 * the grader uses medians, and a distribution-free confidence interval for the median from
 * order statistics (no normality assumed). */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Median of x[0..n); x is not modified. n must be > 0. */
double stats_median(const double *x, size_t n);

/* Approximate 95% confidence interval [*lo, *hi] for the median of x[0..n): the order
 * statistics at ranks n/2 -+ 1.96 sqrt(n)/2 (normal approximation to the binomial).
 * With fewer than 6 samples the interval is the whole range. */
void stats_median_ci(const double *x, size_t n, double *lo, double *hi);

/* out[i] = num[i] / den[i] for i < n: per-pair ratios of interleaved samples. */
void stats_ratios(const double *num, const double *den, size_t n, double *out);

/* How a median ratio sits against a threshold, from its confidence interval. */
typedef enum ratio_position {
    RATIO_ABOVE,    /* the whole interval is at or above the threshold */
    RATIO_BELOW,    /* the whole interval is below it */
    RATIO_STRADDLES /* the interval contains it: more samples are needed to be sure */
} ratio_position;

ratio_position stats_position(double lo, double hi, double threshold);

/* True when the interval's half-width is at most `rel` of the median (0.01 for "about 1%"). */
int stats_precise(double median, double lo, double hi, double rel);

/* How much slower one set of timed units ran than another: median(a) / median(b) - 1, each
 * median less the median of its own null calls (the path's fixed cost) first. The grader's
 * "the reference ran x% slower beside your code than alone" (harness and driver both). */
double stats_slowdown(const double *a, const double *a_null, size_t na, const double *b,
                      const double *b_null, size_t nb);

#ifdef __cplusplus
}
#endif
#endif
