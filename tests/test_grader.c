/* test_grader.c - CUnit tests of the grader's records, config and verdicts (no processes). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/text.h"
#include "../grader/plan/config.h"
#include "../grader/wire/check_line.h"
#include "../grader/decide/verdict.h"
#include "../grader/plan/lab_select.h"
#include "../grader/make/manifest.h"
#include "../grader/wire/records.h"
#include "../grader/feedback/fault_rerun.h"
#include "../grader/fault/fault.h"
#include "../grader/harness/hidden_size.h"
#include "../grader/harness/alone_cache.h"
#include "../grader/harness/region.h"
#include "../common/rng.h"
#include "suites.h"

/* ---- records ----------------------------------------------------------------------------- */

static void test_escape_roundtrip(void)
{
    const char *nasty = "a b=c%d\ne\tf\x01g é";
    char esc[256];
    CU_ASSERT_TRUE(results_escape(nasty, esc, sizeof esc));
    CU_ASSERT_PTR_NULL(strchr(esc, ' '));
    CU_ASSERT_PTR_NULL(strchr(esc, '='));
    CU_ASSERT_PTR_NULL(strchr(esc, '\n'));
    char line[512];
    snprintf(line, sizeof line, "correct detail=%s n=5", esc);
    record r;
    const char *why = NULL;
    CU_ASSERT_EQUAL_FATAL(record_parse(line, &r, &why), 0);
    CU_ASSERT_STRING_EQUAL(r.type, "correct");
    CU_ASSERT_STRING_EQUAL(record_get(&r, "detail"), nasty);
    double n = 0;
    CU_ASSERT_EQUAL(record_get_num(&r, "n", &n), 0);
    CU_ASSERT_DOUBLE_EQUAL(n, 5, 0);
    CU_ASSERT_EQUAL(record_get_num(&r, "detail", &n), -1); /* not a number */
    CU_ASSERT_PTR_NULL(record_get(&r, "missing"));
    record_free(&r);
    char tiny[4];
    CU_ASSERT_FALSE(results_escape("a b c", tiny, sizeof tiny)); /* did not fit: says so */
}

static void test_parse_rejects_garbage(void)
{
    static const char *const bad[] = {
        "",                           /* no type */
        "Correct n=1",                /* type not lowercase */
        "correct n",                  /* field without '=' */
        "correct =1",                 /* empty key */
        "correct n=%zz",              /* bad escape */
        "correct n=%4",               /* short escape */
        "correct n=1  bad=2",         /* empty field */
        "segfault at 0x0: core dumped",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        record r;
        const char *why = NULL;
        CU_ASSERT_EQUAL(record_parse(bad[i], &r, &why), -1);
        CU_ASSERT_PTR_NOT_NULL(why);
    }
    record r;
    const char *why;
    CU_ASSERT_EQUAL(record_parse("end", &r, &why), 0); /* a bare type is fine */
    CU_ASSERT_EQUAL(r.n, 0);
    record_free(&r);
}


/* The driver's command to a harness: whatever the paths hold (spaces, '=', '%', newlines, a
 * forged second command, escapes, bytes that are not UTF-8), one line carries them and reads
 * back exactly; anything the encoder would not write is refused. */
static void test_check_line_roundtrip(void)
{
    static const char *const paths[] = {
        "build/grade/coalescing.0.records",
        "a b/c=d%41%zz/e",
        "x\ncheck index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=/tmp/a log=/tmp/b",
        "line\nbreak\r\x1b[2J\tTAB\x7f\x01",
        "\xff\xfe not utf-8 \xc3\xa9 UTF-8 \xe2\x80\xae bidi",
        "-",
    };
    static const double numbers[] = {0.5, 1.0 / 3, 1e-300, 1e300, 0, 15, 123456.789};
    const size_t np = sizeof paths / sizeof paths[0], nn = sizeof numbers / sizeof numbers[0];
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < nn; j++) {
            check_cmd c = {.check = (int)(i * 7 + j), .seed = 0xfedcba9876543210ull >> j,
                           .threshold = numbers[j], .cap_s = numbers[(j + 1) % nn],
                           .timeout_s = numbers[(j + 2) % nn]}, back;
            snprintf(c.records, sizeof c.records, "%s", paths[i]);
            snprintf(c.log, sizeof c.log, "%s%s", paths[np - 1 - i], paths[i]);
            char line[CHECK_LINE_MAX];
            const char *why = NULL;
            CU_ASSERT_EQUAL_FATAL(check_line_format(&c, line, sizeof line), 0);
            CU_ASSERT_PTR_NOT_NULL(strchr(line, '\n'));
            CU_ASSERT_PTR_NULL(strchr(line, '\n')[1] ? line : NULL); /* one line, at its end */
            CU_ASSERT_PTR_NULL(strchr(line, '\r'));
            CU_ASSERT_EQUAL_FATAL(check_line_parse(line, &back, &why), 0);
            CU_ASSERT_EQUAL(back.check, c.check);
            CU_ASSERT_EQUAL(back.seed, c.seed);
            CU_ASSERT_EQUAL(back.threshold, c.threshold); /* exactly: no rounding on the way */
            CU_ASSERT_EQUAL(back.cap_s, c.cap_s);
            CU_ASSERT_EQUAL(back.timeout_s, c.timeout_s);
            CU_ASSERT_STRING_EQUAL(back.records, c.records);
            CU_ASSERT_STRING_EQUAL(back.log, c.log);
        }
    /* The longest paths a command holds, every byte escaped, still fit a line. */
    check_cmd big = {.check = 1, .threshold = 1, .cap_s = 1, .timeout_s = 1}, back;
    memset(big.records, ' ', sizeof big.records - 1);
    memset(big.log, '\n', sizeof big.log - 1);
    char line[CHECK_LINE_MAX];
    const char *why = NULL;
    CU_ASSERT_EQUAL_FATAL(check_line_format(&big, line, sizeof line), 0);
    CU_ASSERT_EQUAL(check_line_parse(line, &back, &why), 0);
    CU_ASSERT_EQUAL(strlen(back.log), sizeof big.log - 1);
    /* What cannot be sent is refused, never cut. */
    check_cmd nan_cmd = {.check = 0, .threshold = 0.0 / 0.0, .cap_s = 1, .timeout_s = 1};
    snprintf(nan_cmd.records, sizeof nan_cmd.records, "r");
    snprintf(nan_cmd.log, sizeof nan_cmd.log, "l");
    CU_ASSERT_EQUAL(check_line_format(&nan_cmd, line, sizeof line), -1);
    nan_cmd.threshold = 1;
    CU_ASSERT_EQUAL(check_line_format(&nan_cmd, line, 20), -1); /* too small a buffer */
    nan_cmd.log[0] = 0;
    CU_ASSERT_EQUAL(check_line_format(&nan_cmd, line, sizeof line), -1); /* an empty path */
}

static void test_check_line_rejects(void)
{
    static const char *const bad[] = {
        "",
        "check 0 5eed 0.5 15 300 a b", /* an older spelling */
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a log=b extra=1",
        "check seed=0x1 index=0 threshold=1 cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 index=0 threshold=1 cap_s=1 timeout_s=1 records=a log=b",
        "check index=-1 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a log=b",
        "check index=00 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 seed=1 threshold=1 cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 seed=0x1 threshold=1.0 cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 seed=0x1 threshold=nan cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 seed=0x1 threshold=inf cap_s=1 timeout_s=1 records=a log=b",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records= log=b",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a%00b log=b",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=%61 log=b",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a%2 log=b",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a log=b\r",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1 records=a log=b\n\n",
        "check index=0 seed=0x1 threshold=1 cap_s=1 timeout_s=1  records=a log=b",
        "done 0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_cmd c;
        const char *why = NULL;
        CU_ASSERT_EQUAL(check_line_parse(bad[i], &c, &why), -1);
        CU_ASSERT_PTR_NOT_NULL(why);
        if (check_line_parse(bad[i], &c, &why) == 0)
            fprintf(stderr, "check_line_parse took: %s\n", bad[i]);
    }
    check_cmd c;
    const char *why = NULL;
    CU_ASSERT_EQUAL(check_line_parse("check index=2 seed=0x5eed threshold=0.5 cap_s=15 "
                                     "timeout_s=300 records=a%20b log=c\n", &c, &why), 0);
    CU_ASSERT_STRING_EQUAL(c.records, "a b");
}

/* The command that begins a lab in the one harness: hostile paths round-trip, and anything the
 * driver would not write (a field missing, out of order, twice, an escape where none belongs,
 * another command) is refused. */
static void test_lab_line(void)
{
    lab_cmd c, back;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "transpose");
    snprintf(c.problem, sizeof c.problem, "/a b/=%%/.grader/transpose/problem.so");
    snprintf(c.student, sizeof c.student, "s\ntudent\x01.so");
    snprintf(c.reference, sizeof c.reference, "r.so");
    memset(c.log, 'x', sizeof c.log - 1); /* the longest path */
    static char line[LAB_LINE_MAX];
    const char *why = NULL;
    CU_ASSERT_EQUAL_FATAL(lab_line_format(&c, line, sizeof line), 0);
    CU_ASSERT_EQUAL_FATAL(lab_line_parse(line, &back, &why), 0);
    CU_ASSERT_EQUAL(memcmp(&c, &back, sizeof c), 0);
    CU_ASSERT_EQUAL(lab_line_format(&c, line, 40), -1); /* too small a buffer */
    c.reference[0] = 0;
    CU_ASSERT_EQUAL(lab_line_format(&c, line, sizeof line), -1); /* an empty path */
    static const char *const bad[] = {
        "lab name=x problem=p student=s reference=r\n",
        "lab name=x problem=p student=s reference=r log=l extra=1\n",
        "lab problem=p name=x student=s reference=r log=l\n",
        "lab name=x problem=p student=s reference=r log=l log=l\n",
        "lab name=x problem=p student=s reference=r log=\n",
        "lab name=x problem=%70 student=s reference=r log=l\n",
        "check name=x problem=p student=s reference=r log=l\n",
        "end\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(lab_line_parse(bad[i], &back, &why), -1);
    CU_ASSERT_EQUAL(lab_line_parse("lab name=x problem=p%20q student=s reference=r log=l\n", &back,
                                   &why), 0);
    CU_ASSERT_STRING_EQUAL(back.problem, "p q");
}

/* ---- config ------------------------------------------------------------------------------ */

static void test_config_file_and_precedence(void)
{
    char path[] = "/tmp/grader-conf-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("# course settings\n"
          "*.threshold = 0.7\n"
          "transpose.threshold = 0.75   # tighter here\n"
          "\n"
          "transpose.speed_points=10\n", f);
    fclose(f);
    config c = {.n = 0};
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(config_parse_file(&c, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.n, 3);
    const char *src;
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "transpose", "threshold", 0.9, &src), 0.75, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(strstr(src, ":3"));
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "reduction", "threshold", 0.9, &src), 0.7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "reduction", "timeout", 60, &src), 60, 0);
    CU_ASSERT_STRING_EQUAL(src, "default");
    /* the environment list comes later and wins */
    CU_ASSERT_EQUAL(config_parse_list(&c, "transpose.threshold=0.8; reduction.timeout=300",
                                      "GRADER_SET", err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "transpose", "threshold", 0.9, &src), 0.8, 1e-12);
    CU_ASSERT_STRING_EQUAL(src, "GRADER_SET");
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "reduction", "timeout", 60, NULL), 300, 0);
    remove(path);
}

static void test_config_errors_say_where(void)
{
    config c = {.n = 0};
    char err[256];
    CU_ASSERT_EQUAL(config_parse_list(&c, "transpose.treshold=0.8", "GRADER_SET", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown key `treshold`"));
    CU_ASSERT_EQUAL(config_parse_list(&c, "threshold=0.8", "GRADER_SET", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "lab.key"));
    CU_ASSERT_EQUAL(config_parse_list(&c, "sgemm.threshold=fast", "GRADER_SET", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a non-negative number"));
    CU_ASSERT_EQUAL(config_parse_file(&c, "/nonexistent/course.conf", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/course.conf"));
    CU_ASSERT_EQUAL(c.n, 0);
}

/* ---- verdicts from records (no process) ------------------------------------------------- */

static const lab_check test_checks[] = {
    {"33 x 33", CHECK_VISIBLE, 0, {33, 33}, 1},
    {"speed", CHECK_SPEED, 0, {0}, 5},
};
static const lab_info test_lab = {.number = "99", .name = "fake", .title = "A fake lab",
                                  .threshold = 0.8, .hint_correct = "HINT-CORRECT",
                                  .hint_speed = "HINT-SPEED", .timeout_s = 10,
                                  .checks = test_checks, .n_checks = 2};

/* Parse lines into a record list as read_records would. */
static void make_list(record_list *l, const char *const *lines, int n)
{
    memset(l, 0, sizeof *l);
    l->rec = calloc((size_t)n, sizeof *l->rec);
    for (int i = 0; i < n; i++) {
        const char *why;
        CU_ASSERT_EQUAL_FATAL(record_parse(lines[i], &l->rec[l->n], &why), 0);
        l->n++;
    }
}

static const child_outcome clean_exit = {1, 0, 0, 0, 0.1};

static void test_correct_verdicts(void)
{
    const char *ok[] = {"begin", "case size=33%20x%2033",
                        "correct impl=student n=1089 bad=0 guard_ok=1 input_ok=1 problem=", "end"};
    record_list l;
    check_decision d;
    make_list(&l, ok, 4);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.size, "33 x 33");
    free_records(&l);

    const char *leak[] = {"begin",
                          "correct impl=student n=1089 bad=0 guard_ok=1 input_ok=1 "
                          "problem=2%20streams%20not%20destroyed", "end"};
    make_list(&l, leak, 3);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "2 streams not destroyed"));
    CU_ASSERT_STRING_EQUAL(d.detail, "HINT-CORRECT");
    free_records(&l);

    const char *before[] = {"begin",
                            "correct impl=student n=10 bad=0 guard_ok=0 guard_at=-4 input_ok=1", "end"};
    make_list(&l, before, 3);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "4 bytes before the start"));
    free_records(&l);

    const char *no_end[] = {"begin", "correct impl=student n=10 bad=0 guard_ok=1 input_ok=1"};
    make_list(&l, no_end, 2);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "without reporting"));
    free_records(&l);

    const char *no_n[] = {"begin", "correct impl=student bad=0 guard_ok=1 input_ok=1", "end"};
    make_list(&l, no_n, 3);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL); /* an incomplete record never passes */
    free_records(&l);
}

/* A speed record list with 20 pairs whose ratios are given by f(i). */
static void speed_list(record_list *l, double (*ratio)(int), const char *timed_correct)
{
    char lines[40][256];
    const char *ptrs[40];
    int n = 0;
    snprintf(lines[n++], 256, "begin");
    snprintf(lines[n++], 256, "correct impl=student n=10 bad=0 guard_ok=1 input_ok=1");
    for (int i = 0; i < 20; i++)
        snprintf(lines[n++], 256, "sample stu_ms=2 ref_ms=%.6f stu_host_ms=2.01 ref_host_ms=2.01",
                 2 * ratio(i));
    if (timed_correct)
        snprintf(lines[n++], 256, "%s", timed_correct);
    snprintf(lines[n++], 256, "speed work=4e9 unit=GB/s ceiling=memcpy ceiling_ms=1 calls_per_unit=1");
    snprintf(lines[n++], 256, "end");
    for (int i = 0; i < n; i++)
        ptrs[i] = lines[i];
    make_list(l, ptrs, n);
}

static double ratio_fast(int i) { return 0.95 + 0.001 * (i % 3); }
static double ratio_slow(int i) { return 0.40 + 0.001 * (i % 3); }
static double ratio_close(int i) { return 0.78 + 0.002 * i; } /* 0.78 .. 0.818 */

static void test_speed_verdicts(void)
{
    record_list l;
    check_decision d;
    speed_list(&l, ratio_fast, NULL);
    decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_TRUE(d.has_speed);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ratio, 0.951, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.rate, 2000.0, 1e-6);        /* 4e9 bytes / 2 ms */
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ceiling_rate, 4000.0, 1e-6); /* 4e9 bytes / 1 ms */
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "0.50 of memcpy"));
    free_records(&l);

    speed_list(&l, ratio_slow, NULL);
    decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.detail, "HINT-SPEED"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.detail, "short of the pass mark"));
    CU_ASSERT_FALSE(d.speed.close_call);
    free_records(&l);

    /* the same samples pass at a lower threshold set by the instructor */
    speed_list(&l, ratio_slow, NULL);
    decide_check(&test_lab, &test_checks[1], 0.35, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    free_records(&l);

    speed_list(&l, ratio_close, NULL);
    decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_TRUE(d.speed.close_call);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "close call"));
    free_records(&l);

    /* fast but a timed call's output was wrong: correctness wins */
    speed_list(&l, ratio_fast, "correct impl=student-timed n=10 bad=1 first_bad=3 detail=x "
                               "guard_ok=1 input_ok=1");
    decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "in a timed call"));
    free_records(&l);
}

/* The student's units holding fewer calls than the reference's (one where its one call
 * lasted a unit, far below the mark): each side's time per call, the ratio per call. */
static void fewer_calls_list(record_list *l, const char *student_calls)
{
    char lines[16][256];
    const char *ptrs[16];
    int n = 0;
    snprintf(lines[n++], 256, "begin");
    snprintf(lines[n++], 256, "correct impl=student n=10 bad=0 guard_ok=1 input_ok=1");
    for (int i = 0; i < 3; i++) /* the student's unit: one call of 100 ms; the reference's: 4 of 1 */
        snprintf(lines[n++], 256, "sample stu_ms=%.1f ref_ms=4.2 null_ms=0.2", 100.2 + 0.1 * i);
    snprintf(lines[n++], 256, "speed work=4e9 unit=GB/s ceiling=memcpy ceiling_ms=1 "
             "calls_per_unit=4%s", student_calls);
    snprintf(lines[n++], 256, "end");
    for (int i = 0; i < n; i++)
        ptrs[i] = lines[i];
    make_list(l, ptrs, n);
}

static void test_speed_fewer_student_calls(void)
{
    record_list l;
    check_decision d;
    fewer_calls_list(&l, " student_calls_per_unit=1");
    decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_EQUAL(d.speed.stu_calls, 1);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.stu_ms, 100.1, 1e-9); /* (100.3 - 0.2) / 1 */
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ref_ms, 1.0, 1e-9);   /* (4.2 - 0.2) / 4 */
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ratio, 1.0 / 100.1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.rate, 4e9 / (100.1 * 1e6), 1e-6);
    free_records(&l);
    /* more calls than the reference's, or none: the reference's count, as without the field */
    const char *wrong[] = {" student_calls_per_unit=5", " student_calls_per_unit=0", ""};
    for (int i = 0; i < 3; i++) {
        fewer_calls_list(&l, wrong[i]);
        decide_check(&test_lab, &test_checks[1], 0.8, &clean_exit, &l, &d);
        CU_ASSERT_EQUAL(d.speed.stu_calls, 4);
        CU_ASSERT_DOUBLE_EQUAL(d.speed.ratio, 4.0 / 100.1, 1e-9);
        free_records(&l);
    }
}

static void test_process_verdicts(void)
{
    record_list empty = {0};
    check_decision d;
    const child_outcome hung = {0, 0, 0, 1, 60.0};
    decide_check(&test_lab, &test_checks[0], 0.8, &hung, &empty, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "hung"));
    const child_outcome segv = {0, 0, 11, 0, 0.2};
    decide_check(&test_lab, &test_checks[0], 0.8, &segv, &empty, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "crashed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "signal 11"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "fake"));

    /* The harness stopped on an error of its own (status 2). Isolated (the driver knows it
     * from the harness's greeting), it held no student code: the grader's error. Not
     * isolated, the student's code ran in it: a failure, whatever its records claim. */
    const child_outcome stopped_isolated = {1, 2, 0, 0, 0.3, 1};
    const child_outcome stopped_inprocess = {1, 2, 0, 0, 0.3, 0};
    const char *claims[] = {"begin", "isolation tamper_proof=1 detail=ok"};
    record_list l;
    make_list(&l, claims + 0, 1);
    decide_check(&test_lab, &test_checks[0], 0.8, &stopped_isolated, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_ERROR);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "the grader's harness stopped"));
    free_records(&l);
    make_list(&l, claims, 2); /* a forged label in the records raises nothing */
    decide_check(&test_lab, &test_checks[0], 0.8, &stopped_inprocess, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    free_records(&l);
    /* "The harness failed", said in the records of a process that held student code, is the
     * student's failure; from an isolated harness it is the grader's. */
    const char *harness_error[] = {"begin", "isolation tamper_proof=1 detail=ok",
                                   "error who=harness kind=cuda name=cudaErrorIllegalAddress "
                                   "message=x"};
    const child_outcome ended = {1, 0, 0, 0, 0.3, 0}, ended_isolated = {1, 0, 0, 0, 0.3, 1};
    make_list(&l, harness_error, 3);
    decide_check(&test_lab, &test_checks[0], 0.8, &ended, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    decide_check(&test_lab, &test_checks[0], 0.8, &ended_isolated, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_ERROR);
    free_records(&l);
}

/* "The machine cannot run me", said by the student's process, counts only as far as the
 * reference's process bears it out: blame follows `reference_ran`, and only a fault of the
 * grader's own (or of a machine where the reference cannot run either) is an ERROR. */
static void test_cannot_run_claims(void)
{
    static const struct {
        const char *rec;     /* the harness's error record */
        verdict v;           /* the verdict it must give */
        const char *says;    /* in the message */
    } rows[] = {
        {"error who=student kind=cuda name=cudaErrorNoDevice message=cudaErrorNoDevice "
         "reference_ran=1", VERDICT_FAIL, "yet the reference's process, in the same sandbox, ran"},
        {"error who=student kind=cuda name=cudaErrorNoDevice message=cudaErrorNoDevice "
         "reference_ran=0", VERDICT_ERROR, "the reference's process could not run here either"},
        {"error who=student kind=start name=start status=2 message=gone reference_ran=1",
         VERDICT_FAIL, "exited (status 2) before it answered the grader's first message"},
        {"error who=student kind=start name=start status=2 message=gone reference_ran=0",
         VERDICT_ERROR, "a worker process could not start"},
        {"error who=student kind=cuda name=cudaErrorNoDevice message=cudaErrorNoDevice",
         VERDICT_FAIL, "crashed"}, /* a claim nobody checked is no evidence for an error */
        {"error who=harness kind=cuda name=cudaErrorNoDevice message=no%20device",
         VERDICT_ERROR, "could not run: no device"},
        {"error who=reference kind=start name=start status=2 message=gone",
         VERDICT_ERROR, "the reference solution failed here"},
        /* the worker's answer when the call left its stream gone (a device reset): the
         * student's failure, with the evidence, never a crash of the grader */
        {"error who=student kind=cuda name=cudaErrorContextIsDestroyed "
         "message=cudaErrorContextIsDestroyed", VERDICT_FAIL,
         "after the call the stream the grader gave your function was gone"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *lines[] = {"begin", rows[i].rec};
        record_list l;
        check_decision d;
        make_list(&l, lines, 2);
        decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
        CU_ASSERT_EQUAL(d.v, rows[i].v);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.message, rows[i].says));
        if (d.v != rows[i].v || !strstr(d.message, rows[i].says))
            fprintf(stderr, "\n  row %zu: got %d, %s\n", i, d.v, d.message);
        free_records(&l);
    }
}

/* 1 if s is valid UTF-8 with no control character (common/text.h's list) */
static int no_controls(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left > 0) {
        unsigned cp;
        const int n = utf8_seq(p, left, &cp);
        if (n == 0 || text_is_control(cp))
            return 0;
        p += n, left -= (size_t)n;
    }
    return 1;
}

/* The text a student's worker sends (a problem with its reply, a CUDA error name) reaches the
 * message and detail shown visible: nothing in it starts a line or drives a terminal. */
static void test_student_text_is_data(void)
{
    const char *forged[] = {"begin",
                            "correct impl=student n=10 bad=0 guard_ok=1 input_ok=1 problem="
                            "x%0AScore:%2017/17%0D%1B[2J%1B[32mOK%C2%9B%08%7F%FF%E2%80%AE", "end"};
    record_list l;
    check_decision d;
    make_list(&l, forged, 3);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_STRING_EQUAL(d.message, "x\\nScore: 17/17\\r\\x1b[2J\\x1b[32mOK\\u009b\\x08\\x7f"
                                      "\\xff\\u202e");
    free_records(&l);

    const char *error[] = {"begin", "error kind=cuda who=student "
                           "name=cudaErrorX%0AScore:%2017/17%1B[0m message=cudaErrorX%0D "
                           "call=cudaDeviceSynchronize() where=grader/harness/harness.cu:1"};
    make_list(&l, error, 2);
    decide_check(&test_lab, &test_checks[0], 0.8, &clean_exit, &l, &d);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT(no_controls(d.message) && no_controls(d.detail));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "cudaErrorX\\r"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.detail, "cudaErrorX\\nScore: 17/17\\x1b[0m"));
    free_records(&l);
}

static void test_find_lab(void)
{
    CU_ASSERT_PTR_NOT_NULL(find_lab("coalescing"));
    CU_ASSERT_PTR_EQUAL(find_lab("01"), find_lab("coalescing"));
    CU_ASSERT_PTR_EQUAL(find_lab("1"), find_lab("coalescing"));
    CU_ASSERT_PTR_EQUAL(find_lab("01-coalescing"), find_lab("coalescing"));
    CU_ASSERT_PTR_NULL(find_lab("coalesce"));
    CU_ASSERT_PTR_NULL(find_lab("1x"));
    CU_ASSERT_PTR_NULL(find_lab("-1"));
    CU_ASSERT_PTR_NULL(find_lab("0"));
    CU_ASSERT_PTR_NULL(find_lab("10"));
    CU_ASSERT_PTR_NULL(find_lab(""));
}

/* LAB= as every tool reads it (grader/plan/lab_select.h): the labs chosen, in workbook order, or
 * the error's words. */
static const struct lab_list_case {
    const char *text; /* LAB= */
    const char *want; /* the names chosen, space-separated; NULL: an error */
    const char *says; /* a phrase of the error */
} lab_list_cases[] = {
    {"", "*", NULL}, /* every lab ("*": all_labs, in order, however many there are) */
    {"   ", "*", NULL},
    {"transpose", "transpose", NULL},
    {"06", "transpose", NULL},
    {"6", "transpose", NULL},
    {"06-transpose", "transpose", NULL},
    {"01,1", "coalescing", NULL},                  /* one lab, named twice: graded once */
    {"01,coalescing,01-coalescing", "coalescing", NULL},
    {"06,01", "coalescing transpose", NULL},       /* workbook order, whatever the order given */
    {"06 01", "coalescing transpose", NULL},       /* spaces separate too */
    {" 06 , 9 ", "transpose sgemm", NULL},
    {",", NULL, "empty item"},
    {"01,,06", NULL, "empty item"},
    {"01,", NULL, "empty item"},
    {"nosuchlab", NULL, "no lab called `nosuchlab`"},
    {"01,nosuchlab", NULL, "no lab called `nosuchlab`"},
    {"6x", NULL, "no lab called `6x`"},
    {"10", NULL, "no lab called `10`"},
};

static void test_lab_list_parse(void)
{
    for (size_t k = 0; k < sizeof lab_list_cases / sizeof lab_list_cases[0]; k++) {
        const struct lab_list_case *c = &lab_list_cases[k];
        const lab_info *labs[64];
        char err[1024] = "", got[512] = "";
        char every[512] = "", last[96];
        for (int i = 0; i < n_all_labs; i++)
            snprintf(every + strlen(every), sizeof every - strlen(every), "%s%s", i ? " " : "",
                     all_labs[i]->name);
        /* an error lists every lab, the last one too */
        snprintf(last, sizeof last, "%s %s", all_labs[n_all_labs - 1]->number, all_labs[n_all_labs - 1]->name);
        const int n = lab_list_parse(c->text, labs, err, sizeof err);
        for (int i = 0; i < n; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", labs[i]->name);
        const char *want = c->want && !strcmp(c->want, "*") ? every : c->want;
        const int ok = want ? n >= 0 && !strcmp(got, want)
                            : n == -1 && strstr(err, c->says) && strstr(err, last);
        if (!ok)
            printf("\n  LAB=%s: got %d `%s` `%s`", c->text, n, got, err);
        CU_ASSERT_TRUE(ok);
    }
}

/* The student's file: a tree laid out like labs/, or one .cu file. */
static void test_student_paths(void)
{
    const lab_info *t = find_lab("transpose");
    char buf[256];
    lab_student_file("labs", t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "labs/06-transpose/transpose.cu");
    lab_student_file("/x/tree", t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "/x/tree/06-transpose/transpose.cu");
    lab_student_file("solutions/06-transpose/steps/2-tiled.cu", t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "solutions/06-transpose/steps/2-tiled.cu");
    lab_student_rel(t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "06-transpose/transpose.cu");
    /* the file-or-folder rule, and the tree and path the compile sandbox is given (make reads
     * them through lab-manifest student-paths) */
    CU_ASSERT_TRUE(lab_student_is_file("x/mine.cu"));
    CU_ASSERT_FALSE(lab_student_is_file("labs"));
    CU_ASSERT_FALSE(lab_student_is_file("a.cu/"));
    CU_ASSERT_FALSE(lab_student_is_file(".cu"));
    static const struct { const char *student, *tree, *rel, *box; } places[] = {
        {"labs", "labs", "06-transpose/transpose.cu", "06-transpose/transpose.cu"},
        {"/x/odd#dir/", "/x/odd#dir/", "06-transpose/transpose.cu", "06-transpose/transpose.cu"},
        {"solutions/06-transpose/steps/2-tiled.cu", "solutions/06-transpose/steps", "2-tiled.cu",
         "06-transpose/2-tiled.cu"},
        {"mine.cu", ".", "mine.cu", "06-transpose/mine.cu"},
        {"./mine.cu", ".", "mine.cu", "06-transpose/mine.cu"},
        {"/mine.cu", "/", "mine.cu", "06-transpose/mine.cu"},
    };
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        char tree[256], rel[256];
        lab_student_place(places[i].student, t, tree, sizeof tree, rel, sizeof rel);
        lab_student_compiled(places[i].student, t, buf, sizeof buf);
        CU_ASSERT_STRING_EQUAL(tree, places[i].tree);
        CU_ASSERT_STRING_EQUAL(rel, places[i].rel);
        CU_ASSERT_STRING_EQUAL(buf, places[i].box);
    }
    lab_folder(t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "06-transpose");
    /* make docs-gen writes the rule once more, from the lab folders alone (it runs where
     * nothing is built): labs/skeletons.sha256, which the batch's pristine skeletons are laid
     * out by, names each lab's file as lab_student_rel does */
    FILE *f = fopen("labs/skeletons.sha256", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    int named = 0;
    while (fgets(line, sizeof line, f))
        for (int k = 0; k < n_all_labs; k++) {
            lab_student_rel(all_labs[k], buf, sizeof buf);
            const char *at = strstr(line, "  ");
            named += at && !strncmp(at + 2, buf, strlen(buf)) && at[2 + strlen(buf)] == '\n';
        }
    fclose(f);
    CU_ASSERT_EQUAL(named, n_all_labs);
}

/* A visible check's name says its size as text, for people; the row's size column is what
 * runs. Every table's names agree with their columns: the first dimension is a number of the
 * name, and a name that opens "A x B" or "A x B x C" gives every dimension in order. */
static void test_check_names_state_sizes(void)
{
    for (int k = 0; k < n_all_labs; k++)
        for (int i = 0; i < all_labs[k]->n_checks; i++) {
            const lab_check *c = &all_labs[k]->checks[i];
            if (c->kind != CHECK_VISIBLE)
                continue;
            int first = 0;
            for (const char *p = c->name; *p && !first; p++)
                if (*p >= '0' && *p <= '9' && (p == c->name || p[-1] < '0' || p[-1] > '9'))
                    first = strtoll(p, NULL, 10) == c->size[0];
            long long d[LAB_MAX_DIMS] = {0};
            const int n = sscanf(c->name, "%lld x %lld x %lld", &d[0], &d[1], &d[2]);
            int dims_ok = 1;
            for (int j = 0; n >= 2 && j < n; j++)
                dims_ok &= d[j] == c->size[j];
            if (!first || !dims_ok)
                printf("\n  %s: \"%s\" does not state its size %lld x %lld x %lld",
                       all_labs[k]->name, c->name, c->size[0], c->size[1], c->size[2]);
            CU_ASSERT_TRUE(first && dims_ok);
        }
}

/* A lab's entry points as its manifest gives them (grader/make/manifest.h): the wire format must be
 * the signature's, parameter by parameter. */
static const struct entry_case {
    lab_entry e;      /* symbol, signature, wire */
    const char *says; /* NULL: accepted; else a phrase of the rejection */
} entry_cases[] = {
    {{"t", "float *out, const float *in, int rows, int cols, cudaStream_t stream", "ppii"}, NULL},
    {{"r", "float *r, const float *in, long long n, float *s, cudaStream_t stream", "pplp"}, NULL},
    {{"g", "int M, float alpha, const float *A, size_t n, double d, unsigned *u", "ifpzfp"}, NULL},
    {{"k", "float *o, size_t n, streams_kernel process", "pzip"}, NULL}, /* the shim makes one */
    {{"t", "float *out, const float *in, int rows, int cols, cudaStream_t stream", "ppli"}, "does not match"},
    {{"t", "float *out, const float *in, int rows, int cols, cudaStream_t stream", "ppi"}, "does not match"},
    {{"t", "float *out, const float *in, int rows, int cols, cudaStream_t stream", "ppiii"}, "does not match"},
    {{"t", "float *out, int n", "pix"}, "does not match"},
    {{"t", "cudaStream_t stream, float *out", "p"}, "stream must be the last"},
    {{"t", "float *, int n", "pi"}, "needs a type and a name"},
    {{"t", "out, int n", "pi"}, "needs a type and a name"},
    {{"", "int n", "i"}, "needs a symbol"},
};

static void test_manifest_entries(void)
{
    for (size_t k = 0; k < sizeof entry_cases / sizeof entry_cases[0]; k++) {
        const struct entry_case *c = &entry_cases[k];
        char err[512] = "";
        const int rc = manifest_check_entry(&c->e, err, sizeof err);
        const int ok = c->says ? rc == -1 && strstr(err, c->says) : rc == 0;
        if (!ok)
            printf("\n  %s(%s) \"%s\": rc %d `%s`", c->e.symbol, c->e.signature, c->e.wire, rc, err);
        CU_ASSERT_TRUE(ok);
    }
    manifest_param p[MANIFEST_MAX_PARAMS];
    char err[256];
    const lab_entry e = {"t", "const float *in,  unsigned long long  n , cudaStream_t s", "pl"};
    CU_ASSERT_EQUAL(manifest_params(&e, p, err, sizeof err), 3);
    CU_ASSERT_STRING_EQUAL(p[0].type, "const float *");
    CU_ASSERT_STRING_EQUAL(p[0].name, "in");
    CU_ASSERT_STRING_EQUAL(p[1].type, "unsigned long long");
    CU_ASSERT_EQUAL(p[1].code, 0); /* not a type the wire knows */
    CU_ASSERT_EQUAL(p[2].code, 's');
    /* Every lab's manifest passes, each lab has an entry point, and its symbols are distinct. */
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *lab = all_labs[k];
        CU_ASSERT_TRUE(lab->n_entries >= 1);
        for (int i = 0; i < lab->n_entries; i++) {
            const int rc = manifest_check_entry(&lab->entries[i], err, sizeof err);
            if (rc)
                printf("\n  lab %s: %s", lab->name, err);
            CU_ASSERT_EQUAL(rc, 0);
            for (int j = 0; j < i; j++)
                CU_ASSERT_STRING_NOT_EQUAL(lab->entries[i].symbol, lab->entries[j].symbol);
        }
    }
}


/* The manifest as a whole (make grade-batch's regrade fingerprint): any one field changed
 * changes the text; the sizing functions are code, not in it. */
static void test_manifest_text_whole(void)
{
    const lab_info *base = find_lab("coalescing");
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    static char a[1 << 16], b[1 << 16];
    const size_t n = manifest_text(base, a, sizeof a);
    CU_ASSERT(n > 0 && n < sizeof a);
    CU_ASSERT_EQUAL(manifest_text(base, NULL, 0), n); /* its length, written nowhere */
    char small[16];
    CU_ASSERT_EQUAL(manifest_text(base, small, sizeof small), n);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1); /* cut, and ended */
    lab_check checks[64];
    lab_entry entries[8];
    CU_ASSERT_FATAL(base->n_checks <= 64 && base->n_entries <= 8);
    for (int field = 0; field < 24; field++) {
        lab_info l = *base;
        memcpy(checks, base->checks, sizeof checks[0] * base->n_checks);
        memcpy(entries, base->entries, sizeof entries[0] * base->n_entries);
        l.checks = checks, l.entries = entries;
        lab_check *c = &checks[base->n_checks - 1];
        switch (field) {
        case 0: l.number = "99"; break;
        case 1: l.name = "other"; break;
        case 2: l.title = "another title"; break;
        case 3: entries[0].symbol = "other"; break;
        case 4: entries[0].signature = "float *out"; break;
        case 5: entries[0].wire = "p"; break;
        case 6: l.forbid_libraries = "cub"; break;
        case 7: l.forbid_about = "x"; break;
        case 8: l.forbid_ptx = "mma"; break;
        case 9: l.forbid_sass = "HMMA"; break;
        case 10: l.threshold += 1e-9; break;
        case 11: l.hint_correct = "another hint"; break;
        case 12: l.hint_speed = "another hint"; break;
        case 13: l.timeout_s += 1; break;
        case 14: l.slowdown_noise += 0.01; break;
        case 15: c->name = "another name"; break;
        case 16: c->kind = c->kind == CHECK_SPEED ? CHECK_VISIBLE : CHECK_SPEED; break;
        case 17: c->task += 1; break;
        case 18: c->points += 1; break;
        case 19: c->size[0] += 1; break;
        case 20: c->size[2] += 1; break;
        case 21: c->emu_size[1] += 1; break;
        case 22: l.n_checks -= 1; break;
        case 23: l.speed_size = NULL, l.footprint = NULL; break; /* code: the same text */
        }
        manifest_text(&l, b, sizeof b);
        if (field == 23) {
            CU_ASSERT_STRING_EQUAL(a, b);
        } else {
            if (!strcmp(a, b))
                printf("\n  manifest_text: field %d changed, the text did not", field);
            CU_ASSERT_STRING_NOT_EQUAL(a, b);
        }
    }
    /* No two fields can trade bytes: a title that ends like the next line reads differently. */
    lab_info l1 = *base, l2 = *base;
    l1.title = "t\nhint_correct=1:x", l1.hint_correct = "";
    l2.title = "t", l2.hint_correct = "x";
    manifest_text(&l1, a, sizeof a);
    manifest_text(&l2, b, sizeof b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
}

/* ---- a GPU fault run once more on the emulator (fault_rerun.h) ----------------------------- */

/* Which checks' records ask for a rerun: a fault of the student's own kernel or process, or its
 * wrong values in a correctness check; never the reference's, the harness's, a hang, a start,
 * or a claim that the machine cannot run. */
static void test_fault_rerun_kind(void)
{
    static const struct {
        const char *rec;
        const char *kind; /* NULL: no rerun */
    } cases[] = {
        {"error who=student kind=cuda name=cudaErrorIllegalAddress message=x", "cudaErrorIllegalAddress"},
        {"error who=student kind=cuda name=cudaErrorAssert message=x", "cudaErrorAssert"},
        {"error who=student kind=cuda name=cudaErrorLaunchFailure message=x", "cudaErrorLaunchFailure"},
        {"error who=student kind=cuda name=cudaErrorMisalignedAddress message=x", "cudaErrorMisalignedAddress"},
        {"error who=student kind=crash name=crash message=Segmentation%20fault", "crash"},
        {"error who=student kind=cuda name=cudaErrorInvalidValue message=x", NULL},
        {"error who=student kind=cuda reference_ran=1 name=cudaErrorNoDevice message=x", NULL},
        {"error who=student kind=hang name=hang message=x", NULL},
        {"error who=student kind=start name=start message=x", NULL},
        {"error who=reference kind=cuda name=cudaErrorIllegalAddress message=x", NULL},
        {"error who=harness kind=cuda name=cudaErrorIllegalAddress message=x", NULL},
        /* no error, but the guard bytes around the student's output changed: the line is found
         * by the emulator; a correctness check's wrong values are looked into there too (a read
         * out of bounds, a race); a timed call's wrong values, or the reference's, are not */
        {"correct impl=student n=10 bad=0 guard_ok=0 guard_at=4 input_ok=1", "a write outside the output"},
        {"correct impl=student-timed n=10 bad=0 guard_ok=0 guard_at=-8 input_ok=1", "a write outside the output"},
        {"correct impl=student n=10 bad=3 guard_ok=1 input_ok=1", FAULT_RERUN_WRONG},
        {"correct impl=student-timed n=10 bad=3 guard_ok=1 input_ok=1", NULL},
        {"correct impl=reference n=10 bad=0 guard_ok=0 input_ok=1", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        record_list l;
        const char *lines[] = {"begin", cases[i].rec};
        make_list(&l, lines, 2);
        const char *kind = fault_rerun_kind(&l);
        if (cases[i].kind) {
            CU_ASSERT(kind && !strcmp(kind, cases[i].kind));
        } else {
            CU_ASSERT_PTR_NULL(kind);
        }
        free_records(&l);
    }
    record_list none = {0};
    CU_ASSERT_PTR_NULL(fault_rerun_kind(&none));
}

static char fault_shown[16][300];
static int n_fault_shown;
static void fault_line_cb(const char *text, void *ctx)
{
    (void)ctx;
    if (n_fault_shown < 16)
        snprintf(fault_shown[n_fault_shown++], sizeof fault_shown[0], "%s", text);
}

/* The emulator's report said at the student's line: its head, the lines at the student's
 * file and those naming no place; a line at a place in any other file (the grader's, the
 * emulator's, one the student's code names to have it printed) is left out; the lines the
 * code printed before it are found above it. */
static void test_fault_rerun_report(void)
{
    char path[] = "/tmp/fault-rerun-test-XXXXXX";
    const int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("printed by the kernel\n"
          "cuda-emu: error: trap in kernel k, block (1,0,0), thread (3,0,0)\n"
          "  __trap() (or PTX trap) at 01-coalescing/coalescing.cu:27 ended the kernel\n"
          "  at grader/worker/worker_loop_untrusted.cu:155 (in run_calls)\n"
          "  at /etc/passwd:1\n"
          "  the launch fails with cudaErrorLaunchFailure\n"
          "  at common/emu/src/exec.cpp:1200\n"
          "  called from (coalescing.cu:31)\n"
          "  the buffer (made at grader/worker/worker_loop_untrusted.cu:154), at 01-coalescing/coalescing.cu:32\n"
          "after the report\n"
          "  indented, but no report's\n",
          f);
    fclose(f);
    n_fault_shown = 0;
    CU_ASSERT_EQUAL(fault_emu_report(path, fault_last(path), "01-coalescing/coalescing.cu",
                                     fault_line_cb, NULL), 1);
    CU_ASSERT_EQUAL(n_fault_shown, 5);
    CU_ASSERT_STRING_EQUAL(fault_shown[0], "cuda-emu: error: trap in kernel k, block (1,0,0), thread (3,0,0)");
    CU_ASSERT_PTR_NOT_NULL(strstr(fault_shown[1], "01-coalescing/coalescing.cu:27"));
    CU_ASSERT_STRING_EQUAL(fault_shown[2], "the launch fails with cudaErrorLaunchFailure");
    CU_ASSERT_STRING_EQUAL(fault_shown[3], "called from (coalescing.cu:31)");
    CU_ASSERT_PTR_NOT_NULL(strstr(fault_shown[4], "at 01-coalescing/coalescing.cu:32"));
    CU_ASSERT_EQUAL(fault_last(path), 1);
    /* Reports the code printed before the one that ended it are not taken for it: the last. */
    f = fopen(path, "w");
    fputs("cuda-emu: error: the fault is in the grader's verify kernel, block (0,0,0), thread (0,0,0)\n"
          "  at 01-coalescing/coalescing.cu:1: re-graded as OK\n"
          "cuda-emu: error: trap in kernel k, block (1,0,0), thread (3,0,0)\n"
          "  __trap() (or PTX trap) at 01-coalescing/coalescing.cu:27 ended the kernel\n",
          f);
    fclose(f);
    n_fault_shown = 0;
    CU_ASSERT_EQUAL(fault_emu_report(path, fault_last(path), "01-coalescing/coalescing.cu",
                                     fault_line_cb, NULL), 1);
    CU_ASSERT_EQUAL(n_fault_shown, 2);
    CU_ASSERT_STRING_EQUAL(fault_shown[0], "cuda-emu: error: trap in kernel k, block (1,0,0), thread (3,0,0)");
    CU_ASSERT_EQUAL(fault_last(path), 2);
    /* A report in the student's helper file, beside the lab file or in a subfolder of its
     * folder, is at the student's place as well; never a file up from it or the grader's. */
    f = fopen(path, "w");
    fputs("cuda-emu: error: data race on shared memory in kernel k, block (0,0,0), thread (1,0,0)\n"
          "  thread (1,0,0) writes __shared__ tile at 06-transpose/tile.cuh:15\n"
          "  thread (0,1,0) of the same block read it at 06-transpose/kern/op.cuh:22\n"
          "  at 06-transpose/../secret.h:3\n"
          "  at grader/labs/06-transpose/transpose.h:12\n",
          f);
    fclose(f);
    n_fault_shown = 0;
    CU_ASSERT_EQUAL(fault_emu_report(path, 0, "06-transpose/transpose.cu", fault_line_cb, NULL), 1);
    CU_ASSERT_EQUAL(n_fault_shown, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(fault_shown[1], "06-transpose/tile.cuh:15"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fault_shown[2], "06-transpose/kern/op.cuh:22"));
    const char *rel = "06-transpose/transpose.cu";
    CU_ASSERT_TRUE(fault_mine("06-transpose/transpose.cu", 25, rel));
    CU_ASSERT_TRUE(fault_mine("transpose.cu", 12, rel));
    CU_ASSERT_TRUE(fault_mine("tree/06-transpose/transpose.cu", 30, rel));
    CU_ASSERT_TRUE(fault_mine("06-transpose/tile.cuh", 21, rel));
    CU_ASSERT_FALSE(fault_mine("06-transpose/../x.h", 19, rel));
    CU_ASSERT_FALSE(fault_mine("grader/labs/06-transpose/transpose.h", 36, rel));
    CU_ASSERT_FALSE(fault_mine("common/emu/src/exec.cpp", 23, rel));
    unlink(path);
    CU_ASSERT_EQUAL(fault_emu_report(path, 0, "01-coalescing/coalescing.cu", fault_line_cb, NULL), 0);
    CU_ASSERT_EQUAL(fault_last(path), -1);
}

/* A fault read once into its record (grader/fault/fault.h): the emulator's race and a
 * sanitizer's overflow, each with its kind, places, first file and line, kernel, block, thread,
 * hint and fold key; what the code printed ends where the report starts; a log without a
 * report gives none, and a GPU check's own log is not read for one. */
static void test_fault_parse(void)
{
    char path[] = "/tmp/fault-parse-test-XXXXXX.log";
    const int fd = mkstemps(path, 4);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("printed by the code\n"
          "cuda-emu: error: data race on shared memory in kernel tr<a, b>, block (2,1,0), thread (3,4,0)\n"
          "  thread (3,4,0) reads __shared__ tile at 06-transpose/tile.cuh:22\n"
          "  thread (4,3,0) wrote it at 06-transpose/tile.cuh:15\n"
          "  at grader/worker/worker_loop_untrusted.cu:155\n"
          "  put a __syncthreads() between the writes and the reads\n", f);
    fclose(f);
    static fault_record r;
    fault_parse(&r, path, "06-transpose/transpose.cu", 0);
    CU_ASSERT_TRUE(r.found);
    CU_ASSERT_FALSE(r.sanitizer);
    CU_ASSERT_EQUAL(r.at, 1);
    CU_ASSERT_EQUAL(r.output_upto, 1);
    CU_ASSERT_STRING_EQUAL(r.kind, "data race on shared memory");
    CU_ASSERT_STRING_EQUAL(r.places, "06-transpose/tile.cuh:15, 06-transpose/tile.cuh:22");
    CU_ASSERT_STRING_EQUAL(r.file, "06-transpose/tile.cuh");
    CU_ASSERT_EQUAL(r.line, 15);
    CU_ASSERT_STRING_EQUAL(r.kernel, "tr<a, b>");
    CU_ASSERT_STRING_EQUAL(r.block, "(2,1,0)");
    CU_ASSERT_STRING_EQUAL(r.thread, "(3,4,0)");
    CU_ASSERT_STRING_EQUAL(r.hint, "put a __syncthreads() between the writes and the reads");
    CU_ASSERT_STRING_EQUAL(r.fold, "data race on shared memory|06-transpose/tile.cuh:15, "
                                   "06-transpose/tile.cuh:22");
    CU_ASSERT_EQUAL(r.n_lines, 4); /* the grader's place left out */
    fault_parse(&r, path, "06-transpose/transpose.cu", 1); /* a GPU check's own log */
    CU_ASSERT_FALSE(r.found);
    CU_ASSERT_EQUAL(r.at, -1);
    f = fopen(path, "w");
    fputs("=================================================================\n"
          "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1 at pc 0x2\n"
          "READ of size 4 at 0x1 thread T3\n"
          "    #0 0x55 in scale_rows_kernel(float*) 01-coalescing/coalescing.cu:29\n"
          "    #1 0x56 in run_calls grader/worker/worker_loop_untrusted.cu:155\n"
          "cuda-emu: error: the report above is from kernel scale_rows_kernel, block (0,5,0), thread (7,0,0)\n"
          "SUMMARY: AddressSanitizer: heap-buffer-overflow\n", f);
    fclose(f);
    fault_parse(&r, path, "01-coalescing/coalescing.cu", 0);
    CU_ASSERT_TRUE(r.found && r.sanitizer && !r.no_frame);
    CU_ASSERT_EQUAL(r.at, 0);
    CU_ASSERT_STRING_EQUAL(r.kind, "AddressSanitizer: heap-buffer-overflow READ");
    CU_ASSERT_STRING_EQUAL(r.file, "01-coalescing/coalescing.cu");
    CU_ASSERT_EQUAL(r.line, 29);
    CU_ASSERT_STRING_EQUAL(r.kernel, "scale_rows_kernel");
    CU_ASSERT_STRING_EQUAL(r.block, "(0,5,0)");
    CU_ASSERT_STRING_EQUAL(r.thread, "(7,0,0)");
    CU_ASSERT_STRING_EQUAL(r.hint, FAULT_OVERFLOW_HINT);
    /* a kernel run by one of the emulator's threads: the report ends with the stack that made
     * that thread, through the launch in the lab file; a frame of it is no place of the fault
     * (the fault is in the helper), and is never shown as one */
    f = fopen(path, "w");
    fputs("==2==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1 at pc 0x2\n"
          "READ of size 4 at 0x1 thread T1\n"
          "    #0 0x55 in transpose_naive(float*) 06-transpose/kern/op.cuh:11\n"
          "    #1 0x56 in thread_main common/emu/src/exec.cpp:114\n"
          "\n"
          "SUMMARY: AddressSanitizer: heap-buffer-overflow 06-transpose/kern/op.cuh:11\n"
          "Thread T1 created by T0 here:\n"
          "    #0 0x57 in cuda_emu::launch_erased common/emu/src/exec.cpp:1478\n"
          "    #1 0x58 in transpose 06-transpose/transpose.cu:27\n"
          "==2==ABORTING\n"
          "cuda-emu: error: the report above is from kernel transpose_naive, block (2,12,0), thread (0,4,0)\n", f);
    fclose(f);
    fault_parse(&r, path, "06-transpose/transpose.cu", 0);
    CU_ASSERT_TRUE(r.found && r.sanitizer && !r.no_frame);
    CU_ASSERT_STRING_EQUAL(r.places, "06-transpose/kern/op.cuh:11");
    CU_ASSERT_STRING_EQUAL(r.kernel, "transpose_naive");
    int launch_shown = 0;
    for (int i = 0; i < r.n_lines; i++)
        launch_shown |= strstr(r.lines[i], "transpose.cu:27") != NULL;
    CU_ASSERT_FALSE(launch_shown);
    /* lines longer than any reader's buffer (700 and 3000 bytes, one with a NUL in it) printed
     * before a report: each is one line to every reader, so the report is found at its line,
     * read from there, and what the code printed ends where it starts */
    for (int sanitizer = 0; sanitizer < 2; sanitizer++) {
        f = fopen(path, "w");
        for (int i = 0; i < 700; i++)
            fputc(i == 300 ? 0 : 'x', f);
        fputc('\n', f);
        for (int i = 0; i < 3000; i++)
            fputc('y', f);
        fputc('\n', f);
        fputs(sanitizer ? "==2==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n"
                          "READ of size 4 at 0x1 thread T1\n"
                          "    #0 0x55 in k(float*) 01-coalescing/coalescing.cu:29\n"
                          "SUMMARY: AddressSanitizer: heap-buffer-overflow\n"
                        : "cuda-emu: error: misaligned address in kernel k, block (1,0,0), thread (2,0,0)\n"
                          "  thread (2,0,0) reads at 01-coalescing/coalescing.cu:29\n", f);
        fclose(f);
        fault_parse(&r, path, "01-coalescing/coalescing.cu", 0);
        CU_ASSERT_TRUE(r.found);
        CU_ASSERT_EQUAL(r.sanitizer, sanitizer);
        CU_ASSERT_EQUAL(r.at, 2);
        CU_ASSERT_EQUAL(r.output_upto, 2);
        CU_ASSERT_STRING_EQUAL(r.places, "01-coalescing/coalescing.cu:29");
        CU_ASSERT_EQUAL(r.line, 29);
        if (!sanitizer)
            CU_ASSERT_EQUAL(fault_first(path), fault_last(path));
    }
    f = fopen(path, "w");
    fputs("only what the code printed\n", f);
    fclose(f);
    fault_parse(&r, path, "01-coalescing/coalescing.cu", 0);
    CU_ASSERT_FALSE(r.found);
    CU_ASSERT_EQUAL(r.output_upto, -1);
    CU_ASSERT_STRING_EQUAL(r.fold, "");
    unlink(path);
}

/* ---- hidden sizes under the emulator ------------------------------------------------------ */

static const lab_info *lab_named(const char *name)
{
    for (int i = 0; i < n_all_labs; i++)
        if (!strcmp(all_labs[i]->name, name))
            return all_labs[i];
    return NULL;
}

/* Draws as a GPU's hidden sizes might be: up to 2^22 elements (a quarter of them small enough
 * for the emulator, so 64 draws always find one); or never small enough. */
static void draw_up_to_2_22(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 1ll << 22);
}
static void draw_huge(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1ll << 40, 1ll << 41);
}

static void test_emu_hidden_sizes(void)
{
    const lab_info *red = lab_named("reduction");
    CU_ASSERT_PTR_NOT_NULL_FATAL(red);
    const lab_check *hidden = NULL;
    for (int i = 0; i < red->n_checks && !hidden; i++)
        if (red->checks[i].kind == CHECK_HIDDEN)
            hidden = &red->checks[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(hidden);
    /* lab 07's largest visible case under the emulator, 524309 floats read once, twice over */
    const double cap = emu_hidden_cap(red, hidden->task);
    CU_ASSERT_DOUBLE_EQUAL(cap, EMU_HIDDEN_SLACK * 524309.0 * 4, 0.5);
    int kept = 0, drawn_again = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        long long first[LAB_MAX_DIMS] = {0}, a[LAB_MAX_DIMS] = {0}, b[LAB_MAX_DIMS] = {0};
        rng r;
        rng_seed(&r, seed);
        draw_up_to_2_22(&r, a);
        memcpy(first, a, sizeof first);
        emu_hidden_size(red, hidden, draw_up_to_2_22, &r, a);
        CU_ASSERT(a[0] >= 1 && a[0] * 4.0 <= cap);
        if (first[0] * 4.0 <= cap) { /* small enough at once: left as drawn */
            CU_ASSERT_EQUAL(a[0], first[0]);
            kept++;
        } else {
            drawn_again++;
        }
        rng_seed(&r, seed); /* the seed decides it: the same size again */
        draw_up_to_2_22(&r, b);
        emu_hidden_size(red, hidden, draw_up_to_2_22, &r, b);
        CU_ASSERT_EQUAL(a[0], b[0]);
    }
    CU_ASSERT(kept > 0 && drawn_again > 0);
    /* Never small enough: the smallest of EMU_HIDDEN_DRAWS draws from the same stream. */
    rng r, q;
    rng_seed(&r, 7), rng_seed(&q, 7);
    long long size[LAB_MAX_DIMS] = {0}, each[LAB_MAX_DIMS] = {0};
    draw_huge(&r, size);
    emu_hidden_size(red, hidden, draw_huge, &r, size);
    long long smallest = -1;
    for (int k = 0; k < EMU_HIDDEN_DRAWS; k++) {
        draw_huge(&q, each);
        if (smallest < 0 || each[0] < smallest)
            smallest = each[0];
    }
    CU_ASSERT_EQUAL(size[0], smallest);
    /* Every lab's hidden cases have visible ones of their task to be held to. */
    for (int i = 0; i < n_all_labs; i++)
        for (int j = 0; j < all_labs[i]->n_checks; j++)
            if (all_labs[i]->checks[j].kind == CHECK_HIDDEN &&
                !(emu_hidden_cap(all_labs[i], all_labs[i]->checks[j].task) > 0))
                CU_FAIL("a hidden case whose task has no visible case");
}

/* ---- the reference alone kept by a batch (grader/harness/alone_cache.c) ------------------------- */

static void alone_fill(alone_series *a, int n, double base)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    for (int i = 0; i < n; i++)
        a->ref_ms[i] = base + i * 0.25, a->null_ms[i] = 0.5 + i * 0.001;
}

/* The file an entry of `key` is kept in (the only *.alone in dir). */
static int alone_entry(const char *dir, char *path, size_t len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s/*.alone 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    const int ok = p && fgets(path, (int)len, p) != NULL;
    if (p)
        pclose(p);
    if (ok)
        path[strcspn(path, "\n")] = 0;
    return ok;
}

static void test_alone_cache(void)
{
    char dir[] = "/tmp/alone-test-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char sub[64], key[ALONE_CACHE_KEY_MAX], other[ALONE_CACHE_KEY_MAX], path[256];
    snprintf(sub, sizeof sub, "%s/batch", dir); /* made by the first put */
    CU_ASSERT_EQUAL(alone_cache_key(key, sizeof key, "coalescing", 12, "257 x 4099", 8,
                                    "0000:19:00.0", "1:2:3:4.5"), 0);
    CU_ASSERT_EQUAL(alone_cache_key(other, sizeof other, "coalescing", 12, "257 x 4099", 9,
                                    "0000:19:00.0", "1:2:3:4.5"), 0);
    char tiny[16], broken[ALONE_CACHE_KEY_MAX];
    CU_ASSERT_EQUAL(alone_cache_key(tiny, sizeof tiny, "coalescing", 12, "x", 1, "g", "r"), -1);
    CU_ASSERT_EQUAL(alone_cache_key(broken, sizeof broken, "a\nb", 1, "x", 1, "g", "r"), -1);

    alone_series a, b;
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 300, &b), -1); /* nothing kept yet */
    alone_fill(&a, 15, 3.0);
    CU_ASSERT_EQUAL(alone_cache_put(sub, key, &a), 0);
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 300, &b), 0);
    CU_ASSERT_EQUAL(b.n, 15);
    CU_ASSERT_DOUBLE_EQUAL(b.ref_ms[14], 3.0 + 14 * 0.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b.null_ms[3], 0.503, 1e-9);
    CU_ASSERT(b.age_s >= 0 && b.age_s < 5);
    CU_ASSERT_EQUAL(alone_cache_get(sub, other, 300, &b), -1); /* another key: nothing */
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 1e-9, &b), -1);   /* too old to serve */
    alone_fill(&a, 0, 1.0);
    CU_ASSERT_EQUAL(alone_cache_put(sub, key, &a), -1); /* no rounds: nothing kept */
    alone_fill(&a, ALONE_CACHE_MAX_ROUNDS, 1.0);
    a.n = ALONE_CACHE_MAX_ROUNDS + 1; /* (more than an entry holds) */
    CU_ASSERT_EQUAL(alone_cache_put(sub, key, &a), -1);
    alone_fill(&a, 4, 7.0); /* a new measurement takes the old one's place */
    CU_ASSERT_EQUAL(alone_cache_put(sub, key, &a), 0);
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 300, &b), 0);
    CU_ASSERT_EQUAL(b.n, 4);
    CU_ASSERT_DOUBLE_EQUAL(b.ref_ms[0], 7.0, 1e-9);

    /* What is not an entry written whole by a harness of this machine serves nobody: another
     * key in the file, a round short, a time to come, a negative time. */
    CU_ASSERT_FATAL(alone_entry(sub, path, sizeof path));
    static const char *const bad[] = {
        "grader-alone 1\nkey lab=other\nat 1\nn 1\n1 0.5\n",
        "grader-alone 1\nkey %s\nat 1\nn 2\n1 0.5\n",
        "grader-alone 1\nkey %s\nat 1e12\nn 1\n1 0.5\n",
        "grader-alone 1\nkey %s\nat 1\nn 1\n-1 0.5\n",
        "grader-alone 2\nkey %s\nat 1\nn 1\n1 0.5\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, bad[i], key);
        fclose(f);
        CU_ASSERT_EQUAL(alone_cache_get(sub, key, 1e15, &b), -1);
    }
    FILE *f = fopen(path, "w"); /* and the same, well formed, serves */
    fprintf(f, "grader-alone 1\nkey %s\nat 1\nn 1\n1 0.5\n", key);
    fclose(f);
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 1e15, &b), 0);
    CU_ASSERT_EQUAL(alone_cache_get(sub, key, 1, &b), -1); /* measured long ago */

    /* The environment: off unless a folder is named; GRADER_ALONE_CACHE_S=0 turns it off. */
    const char *d;
    double age;
    unsetenv("GRADER_ALONE_CACHE");
    unsetenv("GRADER_ALONE_CACHE_S");
    CU_ASSERT_EQUAL(alone_cache_config(&d, &age), -1);
    setenv("GRADER_ALONE_CACHE", sub, 1);
    CU_ASSERT_EQUAL(alone_cache_config(&d, &age), 0);
    CU_ASSERT_STRING_EQUAL(d, sub);
    CU_ASSERT_DOUBLE_EQUAL(age, ALONE_CACHE_MAX_AGE_S, 1e-9);
    setenv("GRADER_ALONE_CACHE_S", "60", 1);
    CU_ASSERT_EQUAL(alone_cache_config(&d, &age), 0);
    CU_ASSERT_DOUBLE_EQUAL(age, 60, 1e-9);
    setenv("GRADER_ALONE_CACHE_S", "0", 1);
    CU_ASSERT_EQUAL(alone_cache_config(&d, &age), -1);
    setenv("GRADER_ALONE_CACHE_S", "soon", 1);
    CU_ASSERT_EQUAL(alone_cache_config(&d, &age), -1);
    unsetenv("GRADER_ALONE_CACHE");
    unsetenv("GRADER_ALONE_CACHE_S");

    /* The rule: the kept measurement stands only where the reference beside the student ran
     * no slower than it beyond the lab's noise (reference less the null call, medians). */
    alone_series kept;
    alone_fill(&kept, 15, 10.0); /* reference 10-13.5 ms (median 11.75), null about 0.507 */
    double ref[15], nul[15];
    for (int i = 0; i < 15; i++)
        nul[i] = kept.null_ms[i];
    for (int i = 0; i < 15; i++)
        ref[i] = kept.ref_ms[i]; /* the same speed: stands */
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 15, &kept, 0.03), 1);
    for (int i = 0; i < 15; i++)
        ref[i] = kept.ref_ms[i] * 0.9; /* faster beside the student: stands */
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 15, &kept, 0.03), 1);
    for (int i = 0; i < 15; i++)
        ref[i] = kept.ref_ms[i] * 1.02; /* 2% slower, within 3%: stands */
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 15, &kept, 0.03), 1);
    for (int i = 0; i < 15; i++)
        ref[i] = kept.ref_ms[i] * 1.05; /* 5% slower, beyond 3%: measured again */
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 15, &kept, 0.03), 0);
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 0, &kept, 0.03), 0); /* no rounds beside */
    alone_fill(&a, 0, 1.0);
    CU_ASSERT_EQUAL(alone_cache_serves(ref, nul, 15, &a, 0.03), 0); /* nothing kept */

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}


/* ---- the pieces of a shared region (grader/harness/region.c) ------------------------------- */

static void test_region_pieces(void)
{
    region_map r;
    const size_t A = 4096;
    region_init(&r, 10 * A + 100, A); /* (a partial unit at the end is no room) */
    CU_ASSERT_EQUAL(r.bytes, 10 * A);
    CU_ASSERT_EQUAL(region_round(0, A), A);
    CU_ASSERT_EQUAL(region_round(A + 1, A), 2 * A);
    size_t a, b, c, d, e, got;
    CU_ASSERT(region_take(&r, 1, &a) && a == 0);         /* one unit, even for one byte */
    CU_ASSERT(region_take(&r, 2 * A, &b) && b == A);     /* each at a boundary, in order */
    CU_ASSERT(region_take(&r, 3 * A - 5, &c) && c == 3 * A);
    CU_ASSERT_EQUAL(r.used, 6 * A);
    CU_ASSERT_FALSE(region_take(&r, 5 * A, &d));          /* 4 units left: no room */
    CU_ASSERT(region_give(&r, b, &got) && got == 2 * A); /* the size to zero, rounded */
    CU_ASSERT_FALSE(region_give(&r, b, &got));           /* given back once only */
    CU_ASSERT_FALSE(region_give(&r, b + 1, &got));       /* no piece starts there */
    CU_ASSERT(region_take(&r, A, &d) && d == A);         /* first fit: the gap it left */
    CU_ASSERT(region_take(&r, 2 * A, &e) && e == 6 * A); /* too big for the gap's rest */
    CU_ASSERT(region_take(&r, A, &got) && got == 2 * A); /* the gap's rest */
    CU_ASSERT_EQUAL(r.peak, 8 * A);
    CU_ASSERT(region_take(&r, 2 * A, &got) && got == 8 * A); /* the end's last units */
    CU_ASSERT_EQUAL(r.peak, 10 * A);
    CU_ASSERT_FALSE(region_take(&r, 1, &got));           /* full */
    size_t pieces[] = {a, c, d, e, 2 * A, 8 * A};
    for (int i = 0; i < 6; i++)
        CU_ASSERT(region_give(&r, pieces[i], &got));
    CU_ASSERT_EQUAL(r.n, 0);
    CU_ASSERT_EQUAL(r.used, 0);
    CU_ASSERT_EQUAL(r.peak, 10 * A); /* the most it held, for the next region's size */
    region_init(&r, (size_t)REGION_MAX_PIECES * 2 * A, A);
    for (int i = 0; i < REGION_MAX_PIECES; i++)
        CU_ASSERT(region_take(&r, 1, &got));
    CU_ASSERT_FALSE(region_take(&r, 1, &got)); /* no more pieces than it keeps, room or not */
}

static CU_TestInfo grader_tests[] = {
    {"records escape and parse back", test_escape_roundtrip},
    {"malformed records are rejected", test_parse_rejects_garbage},
    {"the check command: hostile paths and numbers round-trip", test_check_line_roundtrip},
    {"the check command: anything the driver would not write is refused", test_check_line_rejects},
    {"the lab command: hostile paths round-trip, anything else is refused", test_lab_line},
    {"config file, '*' and GRADER_SET precedence", test_config_file_and_precedence},
    {"config errors say where and what", test_config_errors_say_where},
    {"correctness verdicts", test_correct_verdicts},
    {"speed verdicts", test_speed_verdicts},
    {"speed verdicts: the student's units of fewer calls, per call", test_speed_fewer_student_calls},
    {"hang and crash verdicts", test_process_verdicts},
    {"a claim that the machine cannot run is weighed", test_cannot_run_claims},
    {"labs are found by name, number or directory", test_find_lab},
    {"LAB= lists: names, numbers, duplicates, order, errors", test_lab_list_parse},
    {"a student's file: in a tree, or one file", test_student_paths},
    {"a visible check's name states the size its row runs", test_check_names_state_sizes},
    {"entry points: signatures and wire formats of the manifests", test_manifest_entries},
    {"a lab's manifest as a whole: every field in its text", test_manifest_text_whole},
    {"student text in messages is shown as data", test_student_text_is_data},
    {"a GPU fault of the student's code is run again on the emulator", test_fault_rerun_kind},
    {"the emulator's report at the student's line, other files' places left out",
     test_fault_rerun_report},
    {"a fault is read once into its record: kind, places, kernel, block, thread, hint, fold key",
     test_fault_parse},
    {"hidden sizes under the emulator: drawn again, from the seed, within twice the visible",
     test_emu_hidden_sizes},
    {"a batch's reference alone: kept whole, per key, for a while, and used only where the "
     "reference beside the student ran no slower than it",
     test_alone_cache},
    {"a shared region's pieces: aligned, first fit, given back once, its peak kept",
     test_region_pieces},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo grader_suite = {"grader", NULL, NULL, NULL, NULL, grader_tests};
