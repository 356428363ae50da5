/* stats.c - medians and order-statistic confidence intervals. See stats.h. */
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

double stats_median(const double *x, size_t n)
{
    double *s = sorted_copy(x, n);
    double m = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

void stats_median_ci(const double *x, size_t n, double *lo, double *hi)
{
    double *s = sorted_copy(x, n);
    if (n < 6) {
        *lo = s[0];
        *hi = s[n - 1];
    } else {
        const double half = 1.96 * sqrt((double)n) / 2.0;
        long j = (long)floor((double)n / 2.0 - half); /* 1-based rank of the lower bound */
        long k = (long)ceil((double)n / 2.0 + half);  /* 1-based rank of the upper bound */
        if (j < 1) j = 1;
        if (k > (long)n) k = (long)n;
        *lo = s[j - 1];
        *hi = s[k - 1];
    }
    free(s);
}

void stats_ratios(const double *num, const double *den, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = num[i] / den[i];
}

ratio_position stats_position(double lo, double hi, double threshold)
{
    if (lo >= threshold)
        return RATIO_ABOVE;
    if (hi < threshold)
        return RATIO_BELOW;
    return RATIO_STRADDLES;
}

int stats_precise(double median, double lo, double hi, double rel)
{
    return (hi - lo) / 2.0 <= rel * fabs(median);
}

double stats_slowdown(const double *a, const double *a_null, size_t na, const double *b,
                      const double *b_null, size_t nb)
{
    if (na == 0 || nb == 0)
        return 0;
    const double ta = fmax(stats_median(a, na) - stats_median(a_null, na), 1e-9);
    const double tb = fmax(stats_median(b, nb) - stats_median(b_null, nb), 1e-9);
    return ta / tb - 1;
}
