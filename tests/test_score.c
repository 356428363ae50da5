/* test_score.c - CUnit tests of score_lab (grader/decide/score.h): the one points rule of the driver
 * and the batch tool, from a table of cases. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../grader/decide/score.h"
#include "../grader/plan/lab_select.h"
#include "../grader/plan/started.h"
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
    int not_started;             /* the lab's file is not started (started.h) */
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
    {"not started: nothing earned, verdicts as decided", "", {OK(1), OK(1), OK(1), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_OK, VERDICT_OK}, {0, 0, 0, 0}, -1, 9, 0, 0, 1},
    {"not started: nothing earned even where the course gives correctness points",
     "*.correct_points=3", {OK(1), OK(1), SKIP, SKIP},
     {VERDICT_OK, VERDICT_OK, VERDICT_SKIP, VERDICT_SKIP}, {0, 0, 0, 0}, -1, 12, 0, 2, 1},
    {"not started: no partial credit either", "", {OK(1), OK(1), SLOW(0.45), OK(1)},
     {VERDICT_OK, VERDICT_OK, VERDICT_FAIL, VERDICT_OK}, {0, 0, 0, 0}, -1, 9, 1, 0, 1},
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
        score_rules r = score_rules_for(&cfg, &lab);
        r.not_started = c->not_started;
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
              total.not_run == c->not_run && total.not_started == c->not_started;
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

/* The default rule, in every table: a correctness check is worth nothing (correctness is the
 * gate), every lab's points are its speed checks'; so the workbook's total is speed's alone, and
 * a lab whose correctness passes and whose speed is the skeleton's (below the partial mark)
 * earns 0. On a GPU, full marks are the speed checks' points (50 for the nine labs). */
static void test_tables_default_rule(void)
{
    int speed_total = 0;
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *l = all_labs[k];
        const score_rules r = score_rules_for(NULL, l);
        int lab_speed = 0;
        for (int i = 0; i < l->n_checks; i++) {
            if (l->checks[i].kind != CHECK_SPEED && score_check_points(l, &r, i) != 0) {
                printf("\n  lab %s %s: correctness check `%s` is worth %d points (the default is 0)",
                       l->number, l->name, l->checks[i].name, score_check_points(l, &r, i));
                CU_FAIL("a correctness check worth points by default");
            }
            if (l->checks[i].kind == CHECK_SPEED)
                lab_speed += score_check_points(l, &r, i);
        }
        if (lab_speed <= 0)
            printf("\n  lab %s %s: no speed points: it could earn nothing", l->number, l->name);
        CU_ASSERT_TRUE(lab_speed > 0);
        /* every correctness check OK, every speed check failed at the skeleton's speed (well
         * below the partial mark): 0 */
        check_outcome in[64];
        for (int i = 0; i < l->n_checks && i < 64; i++)
            in[i] = l->checks[i].kind == CHECK_SPEED ? (check_outcome){VERDICT_FAIL, 1, 0.1 * r.threshold}
                                                     : (check_outcome){VERDICT_OK, 0, 0};
        lab_score t;
        score_lab(l, &r, in, l->n_checks, NULL, &t);
        CU_ASSERT_EQUAL(t.earned, 0);
        CU_ASSERT_EQUAL(t.possible, lab_speed);
        CU_ASSERT_EQUAL(t.correct_ok, t.correct_n);
        speed_total += lab_speed;
    }
    if (n_all_labs == 9)
        CU_ASSERT_EQUAL(speed_total, 50);
}

/* started.c's normaliser, case by case: comments and white space go, literals stay whole. */
static void test_started_normalise(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"int a = 1;  // note\n", "inta=1;"},
        {"/* head */\nint\ta;\r\n", "inta;"},
        {"x = \"a // b /* c */\";", "x=\"a // b /* c */\";"},
        {"c = '/'; d = '\\''; /* x */", "c='/';d='\\'';"},
        {"s = \"q\\\" // still\"; // gone", "s=\"q\\\" // still\";"},
        {"a /* unclosed", "a"},
        {"a//x\nb", "ab"},
        {"p = \"  two  spaces \";", "p=\"  two  spaces \";"},
        {"a/ b", "a/b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        started_normalise(cases[i].in, strlen(cases[i].in), out);
        if (strcmp(out, cases[i].out))
            printf("\n  normalise `%s`: got `%s`, want `%s`", cases[i].in, out, cases[i].out);
        CU_ASSERT_STRING_EQUAL(out, cases[i].out);
    }
    char hex[65];
    started_sha256_hex("abc", 3, hex); /* FIPS 180-4's example */
    CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    started_sha256_hex("", 0, hex);
    CU_ASSERT_STRING_EQUAL(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char big[200];
    memset(big, 'a', sizeof big); /* more than one block, and padding into a second */
    started_sha256_hex(big, 119, hex);
    CU_ASSERT_STRING_EQUAL(hex, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
}

/* labs/skeletons.normalised.sha256 (make docs-gen's) agrees with started.c: each skeleton that
 * labs/ holds as committed (its raw SHA-256 the one labs/skeletons.sha256 records) is not
 * started; with a comment and blank lines added, still not started; with one name changed, or
 * missing, as started.h says. */
static void test_started_skeletons(void)
{
    char dir[] = "/tmp/started-test.XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    int checked = 0;
    for (int k = 0; k < n_all_labs; k++) {
        char path[512], rel[200], line[512], want[65] = "", have[65];
        lab_student_file("labs", all_labs[k], path, sizeof path);
        lab_student_rel(all_labs[k], rel, sizeof rel);
        FILE *f = fopen("labs/skeletons.sha256", "r"), *src = fopen(path, "rb");
        while (f && fgets(line, sizeof line, f))
            if (strlen(line) > 66 && !strncmp(line + 66, rel, strlen(rel)))
                memcpy(want, line, 64), want[64] = 0;
        if (f)
            fclose(f);
        static char text[1 << 20];
        const size_t n = src ? fread(text, 1, sizeof text - 1, src) : 0;
        if (src)
            fclose(src);
        started_sha256_hex(text, n, have);
        if (!want[0] || strcmp(have, want))
            continue; /* edited here (a student's checkout): not the skeleton to hold it to */
        checked++;
        CU_ASSERT_EQUAL(lab_started(all_labs[k], path, STARTED_DIGESTS), STARTED_SKELETON);
        char copy[600];
        snprintf(copy, sizeof copy, "%s/%s.cu", dir, all_labs[k]->name);
        FILE *out = fopen(copy, "wb");
        fprintf(out, "// my notes: nothing yet\n\n   \n");
        fwrite(text, 1, n, out);
        fprintf(out, "\n/* the end */\n");
        fclose(out);
        CU_ASSERT_EQUAL(lab_started(all_labs[k], copy, STARTED_DIGESTS), STARTED_SKELETON);
        out = fopen(copy, "wb");
        fwrite(text, 1, n, out);
        fprintf(out, "static int mine;\n"); /* one declaration of the student's: work */
        fclose(out);
        CU_ASSERT_EQUAL(lab_started(all_labs[k], copy, STARTED_DIGESTS), STARTED_WORK);
        unlink(copy);
        CU_ASSERT_EQUAL(lab_started(all_labs[k], copy, STARTED_DIGESTS), STARTED_MISSING);
        /* no record: never taken as not started */
        CU_ASSERT_EQUAL(lab_started(all_labs[k], path, "/nonexistent/digests"), STARTED_WORK);
    }
    /* a lab 01 file given for lab 06 is lab 01's (its contract's include, comments aside); lab
     * 01's own, or one naming no contract, is no other lab's */
    char path[600];
    snprintf(path, sizeof path, "%s/x.cu", dir);
    FILE *o = fopen(path, "w");
    fputs("/* #include \"transpose.h\" */\n#include  \"coalescing.h\"\nvoid coalescing();\n", o);
    fclose(o);
    CU_ASSERT_PTR_EQUAL(started_other_lab(find_lab("transpose"), path), find_lab("coalescing"));
    CU_ASSERT_PTR_NULL(started_other_lab(find_lab("coalescing"), path));
    o = fopen(path, "w");
    fputs("#include \"transpose.h\"\n#include \"coalescing.h\"\n", o); /* its own as well */
    fclose(o);
    CU_ASSERT_PTR_NULL(started_other_lab(find_lab("transpose"), path));
    unlink(path);
    rmdir(dir);
    if (!checked)
        printf("\n  (no skeleton in labs/ is as committed here: the record is not checked)");
}

static CU_TestInfo score_tests[] = {
    {"score_lab: points, overrides, speed only once correct, partial credit", test_score_cases},
    {"score_lab: check by check, and the maximum alone", test_score_prefix_and_maximum},
    {"every table lists its speed checks last", test_tables_list_speed_last},
    {"the default rule: correctness is worth 0, speed earns, 50 in all", test_tables_default_rule},
    {"not started: the normaliser and SHA-256", test_started_normalise},
    {"not started: the skeletons' record agrees with the normaliser", test_started_skeletons},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo score_suite = {"score", NULL, NULL, NULL, NULL, score_tests};
