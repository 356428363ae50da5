/* speed_verdict.c - TRUSTED, NO GPU: a speed check's verdict from its records: the per-round
 * ratios against the pass mark, the reference's slowdowns beside the student, work left
 * running, rates above the hardware's peak, and the notes on a close call (see verdict.h; it
 * calls nothing of verdict.c). */
#include "verdict_parts.h"
#include "../../common/stats.h"
#include "../../common/text.h"
#include "../../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Median of `key` over the records of `type` (0 if none); *n gets how many there were. */
static double median_field(const record_list *l, const char *type, const char *key, int *n)
{
    double *x = xmalloc((size_t)(l->n + 1) * sizeof *x);
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->rec[i].type, type) && !record_get_num(&l->rec[i], key, &x[k]))
            k++;
    const double m = k ? stats_median(x, (size_t)k) : 0;
    free(x);
    if (n)
        *n = k;
    return m;
}

/* Field `key` of the records of `type` (and `phase`: records without one are phase 1; 0 for
 * any), as a new array (free it); *n gets how many. */
static double *series(const record_list *l, const char *type, int phase, const char *key,
                      int *n)
{
    double *out = xmalloc((size_t)(l->n + 1) * sizeof *out);
    *n = 0;
    for (int i = 0; i < l->n; i++) {
        double p = 1;
        if (strcmp(l->rec[i].type, type))
            continue;
        record_get_num(&l->rec[i], "phase", &p);
        if ((phase == 0 || (int)p == phase) && !record_get_num(&l->rec[i], key, &out[*n]))
            (*n)++;
    }
    return out;
}

/* The reference's slowdown beside the student's process against alone (stats_slowdown on the
 * records); *rounds_b, *rounds_a get how many rounds each had. 0 when either has fewer than 3. */
static double slowdown_between(const record_list *l, const char *beside, int bphase, int aphase,
                               int *rounds_b, int *rounds_a)
{
    int nb, nbn, na, nan_;
    double *b = series(l, beside, bphase, "ref_ms", &nb);
    double *bn = series(l, beside, bphase, "null_ms", &nbn);
    double *a = series(l, "alone", aphase, "ref_ms", &na);
    double *an = series(l, "alone", aphase, "null_ms", &nan_);
    double sd = 0;
    *rounds_b = nb == nbn ? nb : 0;
    *rounds_a = na == nan_ ? na : 0;
    if (*rounds_b >= 3 && *rounds_a >= 3)
        sd = stats_slowdown(b, bn, (size_t)nb, a, an, (size_t)na);
    free(b), free(bn), free(a), free(an);
    return sd;
}

/* The comparisons of the reference beside the student with alone: phase 1 with alone 1 and,
 * where both were measured again, phase 2 with alone 1 and with alone 2 (each time beside
 * then has a time alone on either side of it, so a drift of the machine's speed over time
 * cannot make all three look slow). */
static void reference_slowdowns(const lab_info *lab, const record_list *l, speed_figures *f)
{
    int *n = f->slowdown_rounds, unused;
    f->slowdown_bound = lab_slowdown_noise(lab);
    f->n_slowdowns = 0;
    f->slowdowns[0] = slowdown_between(l, "sample", 0, 1, &n[0], &n[1]);
    if (n[0] < 3 || n[1] < 3)
        return;
    f->n_slowdowns = 1;
    f->slowdowns[1] = slowdown_between(l, "beside", 2, 1, &n[2], &unused);
    f->slowdowns[2] = slowdown_between(l, "beside", 2, 2, &n[2], &n[3]);
    if (n[2] >= 3 && n[3] >= 3)
        f->n_slowdowns = 3;
}

/* What the idle probes saw after the timed units of phase 1 (see LEFT_RUNNING_MS). */
static void left_running(const record_list *l, speed_figures *f)
{
    double *w = xmalloc((size_t)(l->n + 1) * sizeof *w);
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        const record *r = &l->rec[i];
        double left, busy = 0;
        if (strcmp(r->type, "sample"))
            continue;
        if (!record_get_num(r, "stu_left_ms", &left)) {
            record_get_num(r, "stu_busy_before", &busy);
            if (busy == 0) {
                f->left_counted++;
                if (left >= LEFT_RUNNING_MS)
                    w[k++] = left;
            }
        }
        busy = 0;
        if (!record_get_num(r, "ref_left_ms", &left)) {
            record_get_num(r, "ref_busy_before", &busy);
            if (busy == 0) {
                f->left_ref_counted++;
                f->left_ref_units += left >= LEFT_RUNNING_MS;
            }
        }
    }
    f->left_units = k;
    for (int i = 0; i < k; i++)
        f->left_max_ms = fmax(f->left_max_ms, w[i]);
    f->left_median_ms = k ? stats_median(w, (size_t)k) : 0;
    free(w);
}

/* Direct evidence of work left running: it followed at least 3 of the student's units and at
 * least half of those counted, and at most a quarter as many of the reference's units through
 * the same probe (on a machine whose probes come back late for other reasons, both show it). */
static int left_running_is_evidence(const speed_figures *f)
{
    return f->left_units >= 3 && 2 * f->left_units >= f->left_counted &&
           4 * f->left_ref_units <= f->left_units;
}

/* A slowdown of the reference is evidence only when it was measured three times, beside and
 * alone in turn, and every comparison was beyond the lab's noise. */
static int slowdown_is_evidence(const speed_figures *f)
{
    if (f->n_slowdowns < 3)
        return 0;
    for (int i = 0; i < 3; i++)
        if (!(f->slowdowns[i] > f->slowdown_bound))
            return 0;
    return 1;
}
/* 1 if ratio and threshold print the same with `digits` decimals. */
static int ratio_reads_as(double ratio, double threshold, int digits)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", digits, ratio);
    snprintf(b, sizeof b, "%.*f", digits, threshold);
    return strcmp(a, b) == 0;
}

/* A pass mark as an instructor wrote it: 0.75, 0.5, 0.625 (at least two decimals, at most 4). */
static const char *threshold_text(double threshold)
{
    static char t[32];
    for (int d = 2; d <= 4; d++) {
        snprintf(t, sizeof t, "%.*f", d, threshold);
        if (fabs(strtod(t, NULL) - threshold) < 1e-12)
            break;
    }
    return t;
}

/* Measured rates above the hardware's peak by more than this are impossible, not fast. */
#define PHYSICAL_MARGIN 1.08

/* The figures of a speed check from its records: the per-round ratios (less the path's own
 * cost, a null call through the same path), their median and interval, the reference alone
 * and beside, work left running, the rates. 0, or -1 with d set to FAIL when the records are
 * not a complete set (the harness holds no student code: a gap is the harness's failure, and
 * a forged set cannot get past the parser). `sp` is the check's `speed` record. */
static int speed_measure(const lab_info *lab, double threshold, const record_list *l,
                         const record *sp, check_decision *d)
{
    double work = 0, ceiling_ms = 0, calls = 1, stu_calls = 0;
    record_get_num(sp, "work", &work);
    record_get_num(sp, "ceiling_ms", &ceiling_ms);
    record_get_num(sp, "calls_per_unit", &calls);
    calls = calls >= 1 ? calls : 1;
    /* the student's units may hold fewer calls (never more): each side's time is per call */
    record_get_num(sp, "student_calls_per_unit", &stu_calls);
    stu_calls = stu_calls >= 1 && stu_calls <= calls ? stu_calls : calls;
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strcmp(l->rec[i].type, "sample") == 0;
    if (n < 3) {
        verdict_set(d, VERDICT_FAIL, "garbage in the harness's results (%d timing samples)", n);
        return -1;
    }
    speed_figures *f = &d->speed;
    f->null_ms = median_field(l, "sample", "null_ms", NULL);
    double *stu = xmalloc(n * sizeof *stu), *ref = xmalloc(n * sizeof *ref);
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->rec[i].type, "sample") != 0)
            continue;
        if (record_get_num(&l->rec[i], "stu_ms", &stu[k]) ||
            record_get_num(&l->rec[i], "ref_ms", &ref[k]) || !(stu[k] > 0) || !(ref[k] > 0)) {
            free(stu);
            free(ref);
            verdict_set(d, VERDICT_FAIL, "garbage in the harness's results (bad sample %d)", k + 1);
            return -1;
        }
        /* less the path's own cost (a null call through the same path), never below 1%; per
         * call */
        stu[k] = fmax(stu[k] - f->null_ms, 0.01 * stu[k]) / stu_calls;
        ref[k] = fmax(ref[k] - f->null_ms, 0.01 * ref[k]) / calls;
        k++;
    }
    d->has_speed = 1;
    f->rounds = n;
    f->calls = (int)calls;
    f->stu_calls = (int)stu_calls;
    f->stu_ms = stats_median(stu, n);
    f->ref_ms = stats_median(ref, n);
    stats_ratios(ref, stu, n, ref); /* ref[] now holds the per-round ratios */
    f->ratio = stats_median(ref, n);
    stats_median_ci(ref, n, &f->ci_lo, &f->ci_hi);
    free(stu);
    free(ref);
    reference_slowdowns(lab, l, f);
    if (f->n_slowdowns > 0) {
        int na, nan_;
        double *a = series(l, "alone", 1, "ref_ms", &na);
        double *an = series(l, "alone", 1, "null_ms", &nan_);
        f->ref_alone_ms =
            fmax(stats_median(a, (size_t)na) - stats_median(an, (size_t)nan_), 1e-9) / calls;
        free(a), free(an);
        f->slowdown = f->slowdowns[0];
    }
    left_running(l, f);
    f->rate = work / (f->stu_ms * 1e6);
    f->ceiling_rate = ceiling_ms > 0 ? work / (ceiling_ms * 1e6) : 0;
    snprintf(f->unit, sizeof f->unit, "%s", record_get(sp, "unit") ? record_get(sp, "unit") : "");
    snprintf(f->ceiling, sizeof f->ceiling, "%s",
             record_get(sp, "ceiling") ? record_get(sp, "ceiling") : "");
    f->close_call = stats_position(f->ci_lo, f->ci_hi, threshold) == RATIO_STRADDLES;
    const char *watch = record_get(sp, "gpu_watch"), *why = record_get(sp, "gpu_watch_why");
    snprintf(f->gpu_watch, sizeof f->gpu_watch, "%s", watch ? watch : "");
    snprintf(f->gpu_watch_why, sizeof f->gpu_watch_why, "%s", why ? why : "");
    double again = 0;
    record_get_num(sp, "gpu_watch_again", &again);
    f->gpu_watch_again = again == 1;
    return 0;
}

/* The line's figures: the ratio against the pass mark, the rate and its fraction of the
 * ceiling. Enough digits that the ratio never reads as equal to the pass mark (0.7496 next to
 * 0.75 prints 0.7496x, not 0.75x); the pass mark as it was given. */
static void speed_figures_text(const speed_figures *f, double threshold, char *figures,
                               size_t len)
{
    int digits = 2;
    while (digits < 6 && ratio_reads_as(f->ratio, threshold, digits))
        digits++;
    snprintf(figures, len, "%.*fx the reference (needs %sx): %.0f %s", digits, f->ratio,
             threshold_text(threshold), f->rate, f->unit);
    if (f->ceiling_rate > 0) {
        char more[96];
        snprintf(more, sizeof more, ", %.2f of %s", f->rate / f->ceiling_rate, f->ceiling);
        strncat(figures, more, len - strlen(figures) - 1);
    }
}

/* A speed check failed on evidence other than its ratio: a rate above the hardware's peak
 * (`bound`, 0: unknown), the student's work seen running after its call returned, or the
 * reference slower beside the student's code every time it was measured. 1 with d set (the
 * message states the evidence), or 0 when there is none. */
static int speed_evidence(const speed_figures *f, double bound, const char *figures,
                          check_decision *d)
{
    if (bound > 0 && f->rate > PHYSICAL_MARGIN * bound) {
        verdict_set(d, VERDICT_FAIL, "faster than the hardware can do this work (%.0f %s, the peak is "
            "%.0f): %s", f->rate, f->unit, bound, figures);
        snprintf(d->detail, sizeof d->detail,
                 "No kernel that does the lab's work in the lab's arithmetic runs above the "
                 "hardware's peak: the result came from somewhere the lab does not allow "
                 "(tensor cores, work skipped or kept from an earlier call).");
        return 1;
    }
    if (left_running_is_evidence(f)) {
        verdict_set(d, VERDICT_FAIL, "your work was still running on the GPU after your call returned: "
            "after %d of your %d timed units the GPU stayed busy up to %.1f ms (median %.1f ms), "
            "idle before each; after the reference's, %d of %d: %s", f->left_units,
            f->left_counted, f->left_max_ms, f->left_median_ms, f->left_ref_units,
            f->left_ref_counted, figures);
        snprintf(d->detail, sizeof d->detail,
                 "After every call the grader launches an empty kernel of its own until one "
                 "runs at once; the GPU was idle before each of these calls, so the work was "
                 "yours, and its time was counted as yours. Work that outlives your call is not "
                 "checked and slows what runs next. Finish everything before your entry point "
                 "returns: the grader's worker synchronizes the device after your call, and no "
                 "thread or stream of yours may go on after that.");
        snprintf(d->blame, sizeof d->blame, "left-running");
        return 1;
    }
    if (slowdown_is_evidence(f)) {
        const int *n = f->slowdown_rounds;
        verdict_set(d, VERDICT_FAIL, "the reference ran %.0f%% slower beside your code than alone, each "
            "of the 3 times it was measured (%.0f%%, %.0f%%, %.0f%%; %d and %d rounds beside, %d "
            "and %d alone), beyond this lab's noise of %.0f%% (the spread of honest runs, from the "
            "lab's table): %s", 100 * f->slowdowns[0], 100 * f->slowdowns[0],
            100 * f->slowdowns[1], 100 * f->slowdowns[2], n[0], n[2], n[1], n[3],
            100 * f->slowdown_bound, figures);
        snprintf(d->detail, sizeof d->detail,
                 "The reference was timed with your process beside it, then alone with your "
                 "process ended, then both ways again: slower beside yours every time. Something "
                 "of yours slowed it while it was timed: work that ran on after your call, or a "
                 "device-wide setting your process changed (an L2 set-aside for persisting "
                 "accesses, for instance). Finish all your work before your entry point returns "
                 "and leave the device's settings as you found them.");
        snprintf(d->blame, sizeof d->blame, "slowed-reference");
        return 1;
    }
    return 0;
}

/* The GPU's clock while the check was timed (harness_speed.cu's watch), said where it was
 * held down: a note, never a change of the verdict. Both sides ran in turn, round by round, on
 * the same clock, so the ratio is still a fair one; the student is told what was seen and
 * what to try. A first phase that throttled and was timed again on a quiet clock gets no note
 * (the verdict rests on the quiet one; results.json keeps gpu_watch_again). */
static void gpu_watch_note(const speed_figures *f, check_decision *d)
{
    if (strcmp(f->gpu_watch, "throttled"))
        return;
    char note[400];
    snprintf(note, sizeof note, " [the GPU's clock was held down while this was timed (%.150s)%s: both "
             "sides ran in turn on the same clock; run it again when the GPU is cooler or idle]",
             f->gpu_watch_why, f->gpu_watch_again ? ", and again when timed once more" : "");
    strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
}

/* Notes on a verdict taken from the ratio, never a change of it: a close call (the interval
 * still held the pass mark at the time cap), and a reference slower beside the student's code
 * that was not evidence (once, or not every time it was measured again). */
static void speed_notes(const speed_figures *f, check_decision *d)
{
    if (f->close_call) {
        char note[96];
        snprintf(note, sizeof note, " [close call: 95%% interval %.3f-%.3f]", f->ci_lo, f->ci_hi);
        strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
    }
    if (f->n_slowdowns > 0 && f->slowdowns[0] > f->slowdown_bound) { /* not evidence: a note */
        char note[200];
        if (f->n_slowdowns == 3)
            snprintf(note, sizeof note, " [the reference ran %.0f%% slower beside your code than "
                     "alone once, not every time it was measured again (%.0f%%, %.0f%%): within "
                     "noise, no verdict changed]", 100 * f->slowdowns[0], 100 * f->slowdowns[1],
                     100 * f->slowdowns[2]);
        else
            snprintf(note, sizeof note, " [the reference ran %.0f%% slower beside your code than "
                     "alone, in one measurement: not evidence, no verdict changed]",
                     100 * f->slowdowns[0]);
        strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
    }
    gpu_watch_note(f, d);
}

/* A speed check's verdict: its figures from the records, then evidence other than the ratio,
 * then the ratio against the pass mark, with notes. */
void decide_speed(const lab_info *lab, double threshold, const record_list *l,
                  check_decision *d)
{
    const record *sp = find_record(l, "speed", 0);
    double work = 0, bound = 0;
    if (!sp || record_get_num(sp, "work", &work)) {
        verdict_set(d, VERDICT_FAIL, "garbage in the harness's results (no complete `speed` record)");
        return;
    }
    if (speed_measure(lab, threshold, l, sp, d) != 0)
        return;
    const speed_figures *f = &d->speed;
    char figures[256];
    speed_figures_text(f, threshold, figures, sizeof figures);
    record_get_num(sp, "bound_rate", &bound);
    if (speed_evidence(f, bound, figures, d))
        return;
    if (f->ratio >= threshold) {
        verdict_set(d, VERDICT_OK, "%s", figures);
    } else {
        verdict_set(d, VERDICT_FAIL, "%s", figures);
        d->below_threshold = 1;
        /* how far off, in the lab's own terms: the rate at the pass mark */
        const double pass_rate = work / (f->ref_ms / threshold * 1e6);
        snprintf(d->detail, sizeof d->detail, "%.0f %s short of the pass mark (%.0f %s). %s",
                 pass_rate - f->rate, f->unit, pass_rate, f->unit, lab->hint_speed);
    }
    speed_notes(f, d);
}
