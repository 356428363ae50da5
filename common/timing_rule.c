/* timing_rule.c - time_interleaved's stopping rule on a phase's ratios. See timing_rule.h. */
#include "timing_rule.h"
#include "stats.h"

int timing_rule_stop(const double *ratio, int n, int min_rounds, double threshold,
                     double precision, double elapsed, double soft_cap_s, timing_stop *why)
{
    const int early = threshold > 0 && n >= TIMING_EARLY_ROUNDS;
    if (n < 1 || (n < min_rounds && !early))
        return 0;
    double lo, hi;
    const double med = stats_median(ratio, (size_t)n);
    stats_median_ci(ratio, (size_t)n, &lo, &hi);
    if (n < min_rounds) { /* only a FAIL far below the mark stops here */
        if (hi < TIMING_EARLY_BELOW * threshold) {
            *why = STOP_CLEAR;
            return 1;
        }
        return 0;
    }
    if (threshold > 0 && stats_position(lo, hi, threshold) == RATIO_STRADDLES)
        return 0; /* keep measuring until the hard cap */
    if (stats_precise(med, lo, hi, precision)) {
        *why = STOP_PRECISE;
        return 1;
    }
    /* Far from the pass mark, the verdict is certain long before the ratio is known to 1%. */
    if (threshold > 0 && n >= TIMING_CLEAR_ROUNDS * min_rounds &&
        (hi < TIMING_CLEAR_BELOW * threshold || lo > TIMING_CLEAR_ABOVE * threshold)) {
        *why = STOP_CLEAR;
        return 1;
    }
    if (elapsed >= soft_cap_s) {
        *why = STOP_SOFT_CAP;
        return 1;
    }
    return 0;
}

void timing_rule_ratios(const double *num, const double *den, const double *off, int n,
                        int num_calls, int den_calls, double *ratio)
{
    const double o = off && n > 0 ? stats_median(off, (size_t)n) : 0;
    const double cn = num_calls > 0 ? num_calls : 1, cd = den_calls > 0 ? den_calls : 1;
    for (int i = 0; i < n; i++)
        ratio[i] = ((num[i] - o) / cn) / ((den[i] - o) / cd);
}
