/* test_score.c - CUnit tests of score_lab (grader/decide/score.h): the one points rule of the driver
 * and the batch tool, from a table of cases. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "../grader/decide/score.h"
#include "suites.h"

/* A lab shaped like the real ones: correctness checks, then a speed check with points and one
 * without (lab 08's second). Pass mark 0.5, so partial credit starts at 0.4 by default. */
static const lab_check checks[] = {
    {"visible", CHECK_VISIBLE, 0, {1}, 1},
    {"hidden", CHECK_HIDDEN, 0, {0}, 2},
    {"speed", CHECK_SPEED, 0, {0}, 6},
    {"speed, no points", CHECK_SPEED, 1, {0}, 0},
};
static const lab_info lab = {.number = "99", .name = "fake", .title = "A fake lab",
                             .threshold = 0.5, .timeout_s = 10, .checks = checks, .n_checks = 4};

#define OK(r) {VERDICT_OK, 0, r}
#define FAIL {VERDICT_FAIL, 0, 0}
#define SLOW(r) {VERDICT_FAIL, 1, r} /* failed only for its ratio */
#define SKIP {VERDICT_SKIP, 0, 0}
#define ERR {VERDICT_ERROR, 0, 0}

static const struct score_case {
    const char *what;            /* the rule the case pins */
    const char *set;             /* course config, GRADER_SET syntax ("" for none) */
    check_outcome in[4];         /* each check's decided verdict */
    verdict v[4];                /* final verdicts */
    int earned[4];               /* points earned per check */
    int partial;                 /* index of the check given partial credit, -1 none */
    int possible, failed, not_run;
} cases[] = {
    {"all OK: the table's points", "", {OK(1), OK(1), OK(1), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_OK, VERDICT_OK}, {1, 2, 6, 0}, -1, 9, 0, 0},
    {"overrides: correct_points and speed_points replace the table's", "*.correct_points=3,*.speed_points=10",
     {OK(1), OK(1), OK(1), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_OK, VERDICT_OK}, {3, 3, 10, 10}, -1, 26, 0, 0},
    {"overrides: 0 points makes a check free", "*.correct_points=0",
     {FAIL, OK(1), SKIP, SKIP}, {VERDICT_FAIL, VERDICT_OK, VERDICT_SKIP, VERDICT_SKIP}, {0, 0, 0, 0}, -1, 6, 1, 2},
    {"speed skipped (no GPU): correctness earned, speed not run", "", {OK(1), OK(1), SKIP, SKIP},
     {VERDICT_OK, VERDICT_OK, VERDICT_SKIP, VERDICT_SKIP}, {1, 2, 0, 0}, -1, 9, 0, 2},
    {"speed only once correct: a failed check skips speed even if timed", "", {FAIL, OK(1), OK(2), OK(2)},
     {VERDICT_FAIL, VERDICT_OK, VERDICT_SKIP, VERDICT_SKIP}, {0, 2, 0, 0}, -1, 9, 1, 2},
    {"speed only once correct: an error counts as not correct", "", {OK(1), ERR, OK(2), OK(2)},
     {VERDICT_OK, VERDICT_ERROR, VERDICT_SKIP, VERDICT_SKIP}, {1, 0, 0, 0}, -1, 9, 0, 3},
    {"speed only once correct: no partial credit either", "", {OK(1), FAIL, SLOW(0.45), OK(1)},
     {VERDICT_OK, VERDICT_FAIL, VERDICT_SKIP, VERDICT_SKIP}, {1, 0, 0, 0}, -1, 9, 1, 2},
    {"partial tier 0: below the partial threshold earns nothing", "", {OK(1), OK(1), SLOW(0.39), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 0, 0}, -1, 9, 1, 0},
    {"partial tier 1: at the default partial threshold (0.8 x 0.5), half the points", "",
     {OK(1), OK(1), SLOW(0.4), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 3, 0}, 2, 9, 1, 0},
    {"partial tier 1: half of odd points rounds down", "*.speed_points=5",
     {OK(1), OK(1), SLOW(0.49), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 2, 5}, 2, 13, 1, 0},
    {"partial tier 2: at the pass mark, full points (decided OK)", "", {OK(1), OK(1), OK(0.5), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_OK, VERDICT_OK}, {1, 2, 6, 0}, -1, 9, 0, 0},
    {"partial_points set", "*.partial_points=4", {OK(1), OK(1), SLOW(0.45), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 4, 0}, 2, 9, 1, 0},
    {"partial_points above the check's points is capped at them", "*.partial_points=9",
     {OK(1), OK(1), SLOW(0.45), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 6, 0}, 2, 9, 1, 0},
    {"partial_points 0: partial credit of nothing", "*.partial_points=0",
     {OK(1), OK(1), SLOW(0.45), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 0, 0}, 2, 9, 1, 0},
    {"partial_threshold set", "*.partial_threshold=0.2", {OK(1), OK(1), SLOW(0.25), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 3, 0}, 2, 9, 1, 0},
    {"partial_threshold 0: no partial credit", "*.partial_threshold=0", {OK(1), OK(1), SLOW(0.45), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 0, 0}, -1, 9, 1, 0},
    {"the default partial threshold follows an overridden pass mark", "*.threshold=1",
     {OK(1), OK(1), SLOW(0.75), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 0, 0}, -1, 9, 1, 0},
    {"the default partial threshold follows an overridden pass mark (above it)", "*.threshold=1",
     {OK(1), OK(1), SLOW(0.8), OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 3, 0}, 2, 9, 1, 0},
    {"no partial credit for a speed check failed for anything but its ratio", "",
     {OK(1), OK(1), {VERDICT_FAIL, 0, 0.45}, OK(1)}, {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {1, 2, 0, 0}, -1, 9, 1, 0},
    {"no partial credit for a check worth nothing", "", {OK(1), OK(1), OK(1), SLOW(0.45)},
     {VERDICT_OK, VERDICT_OK, VERDICT_OK, VERDICT_FAIL}, {1, 2, 6, 0}, -1, 9, 1, 0},
};

static void test_score_cases(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct score_case *c = &cases[k];
        config cfg = {.n = 0};
        char err[256] = "";
        const int bad_set = c->set[0] && config_parse_list(&cfg, c->set, "test", err, sizeof err);
        if (bad_set)
            printf("\n  case `%s`: %s", c->what, err);
        CU_ASSERT_FALSE(bad_set);
        const score_rules r = score_rules_for(&cfg, &lab);
        check_score out[4];
        lab_score total;
        score_lab(&lab, &r, c->in, 4, out, &total);
        int sum = 0, ok = 1;
        for (int i = 0; i < 4; i++) {
            ok &= out[i].v == c->v[i] && out[i].earned == c->earned[i] &&
                  out[i].partial == (i == c->partial);
            sum += c->earned[i];
        }
        ok &= total.earned == sum && total.possible == c->possible && total.failed == c->failed &&
              total.not_run == c->not_run;
        if (!ok) {
            printf("\n  case `%s`: earned", c->what);
            for (int i = 0; i < 4; i++)
                printf(" %d%s(v%d)", out[i].earned, out[i].partial ? "p" : "", (int)out[i].v);
            printf(", total %d/%d, failed %d, not run %d", total.earned, total.possible,
                   total.failed, total.not_run);
        }
        CU_ASSERT_TRUE(ok);
    }
}

/* Scoring a prefix (the driver, check by check) agrees with scoring the whole lab, and no
 * outcomes at all give the lab's possible points (the batch tool's maximum). */
static void test_score_prefix_and_maximum(void)
{
    const score_rules r = score_rules_for(NULL, &lab);
    const check_outcome in[4] = {OK(1), OK(1), SLOW(0.45), OK(1)};
    check_score whole[4], part[4];
    lab_score tw, tp;
    score_lab(&lab, &r, in, 4, whole, &tw);
    for (int n = 1; n <= 4; n++) {
        score_lab(&lab, &r, in, n, part, &tp);
        CU_ASSERT_EQUAL(part[n - 1].earned, whole[n - 1].earned);
        CU_ASSERT_EQUAL(part[n - 1].v, whole[n - 1].v);
        CU_ASSERT_EQUAL(tp.possible, 9);
    }
    CU_ASSERT_EQUAL(tp.earned, tw.earned);
    score_lab(&lab, &r, NULL, 0, NULL, &tp);
    CU_ASSERT_EQUAL(tp.earned, 0);
    CU_ASSERT_EQUAL(tp.possible, 9);
    CU_ASSERT_EQUAL(score_speed_counts(&lab, in, 2), 1);
    const check_outcome bad[1] = {FAIL};
    CU_ASSERT_EQUAL(score_speed_counts(&lab, bad, 1), 0);
}

/* "Speed only once correct" is decided at the speed check from the checks before it, so every
 * table lists its speed checks after its correctness checks. */
static void test_tables_list_speed_last(void)
{
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *l = all_labs[k];
        int seen_speed = 0, ok = 1;
        for (int i = 0; i < l->n_checks; i++) {
            if (l->checks[i].kind == CHECK_SPEED)
                seen_speed = 1;
            else if (seen_speed)
                ok = 0;
        }
        if (!ok)
            printf("\n  lab %s %s: a correctness check comes after a speed check", l->number, l->name);
        CU_ASSERT_TRUE(ok);
    }
}

static CU_TestInfo score_tests[] = {
    {"score_lab: points, overrides, speed only once correct, partial credit", test_score_cases},
    {"score_lab: check by check, and the maximum alone", test_score_prefix_and_maximum},
    {"every table lists its speed checks last", test_tables_list_speed_last},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo score_suite = {"score", NULL, NULL, NULL, NULL, score_tests};
