/* score.c - TRUSTED, NO GPU: points from verdicts (see score.h). */
#include "score.h"

#include <string.h>

score_rules score_rules_for(const config *cfg, const lab_info *lab)
{
    static const config none = {.n = 0};
    if (!cfg)
        cfg = &none;
    score_rules r;
    r.threshold = config_pass_mark(cfg, lab, &r.threshold_source);
    /* By default half the points at 0.8 of the pass mark: above every untouched skeleton on an
     * H200, below the pass mark. */
    r.partial_threshold = config_get(cfg, lab->name, "partial_threshold", 0.8 * r.threshold, NULL);
    r.partial_points = (int)config_get(cfg, lab->name, "partial_points", -1, NULL);
    r.speed_points = (int)config_get(cfg, lab->name, "speed_points", -1, NULL);
    r.correct_points = (int)config_get(cfg, lab->name, "correct_points", -1, NULL);
    r.not_started = 0;
    return r;
}

int score_check_points(const lab_info *lab, const score_rules *r, int i)
{
    const lab_check *c = &lab->checks[i];
    if (c->kind == CHECK_SPEED && r->speed_points >= 0)
        return r->speed_points;
    if (c->kind != CHECK_SPEED && r->correct_points >= 0)
        return r->correct_points;
    return c->points;
}

int score_speed_counts(const lab_info *lab, const check_outcome *in, int n)
{
    for (int i = 0; i < n && i < lab->n_checks; i++)
        if (lab->checks[i].kind != CHECK_SPEED && in[i].v != VERDICT_OK)
            return 0;
    return 1;
}

void score_lab(const lab_info *lab, const score_rules *r, const check_outcome *in, int n,
               check_score *out, lab_score *total)
{
    memset(total, 0, sizeof *total);
    for (int i = 0; i < lab->n_checks; i++) {
        total->possible += score_check_points(lab, r, i);
        if (lab->checks[i].kind != CHECK_SPEED)
            total->correct_possible += score_check_points(lab, r, i);
    }
    total->not_started = r->not_started;
    for (int i = 0; i < n && i < lab->n_checks; i++) {
        const lab_check *c = &lab->checks[i];
        check_score s = {.v = in[i].v, .points = score_check_points(lab, r, i)};
        if (c->kind == CHECK_SPEED && !score_speed_counts(lab, in, i))
            s.v = VERDICT_SKIP;
        if (s.v == VERDICT_OK)
            s.earned = s.points;
        else if (c->kind == CHECK_SPEED && s.v == VERDICT_FAIL && in[i].below_threshold &&
                 s.points > 0 && r->partial_threshold > 0 &&
                 in[i].ratio >= r->partial_threshold) {
            const int partial = r->partial_points >= 0 ? r->partial_points : s.points / 2;
            s.earned = partial < s.points ? partial : s.points;
            s.partial = 1;
        }
        if (r->not_started)
            s.earned = 0, s.partial = 0;
        if (c->kind != CHECK_SPEED) {
            total->correct_n++;
            total->correct_ok += s.v == VERDICT_OK;
            total->correct_earned += s.earned;
        } else if (s.v == VERDICT_SKIP && score_speed_counts(lab, in, i)) {
            total->speed_skipped++;
        }
        total->earned += s.earned;
        total->failed += s.v == VERDICT_FAIL;
        total->not_run += s.v == VERDICT_SKIP || s.v == VERDICT_ERROR;
        if (out)
            out[i] = s;
    }
}
