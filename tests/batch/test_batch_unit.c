/* test_batch_unit.c - CUnit tests of the JSON reader, the gradebook's CSV and rows, and the
 * course configuration's validation. Runs as its own program: batch_unit_tests. */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json_read.h"
#include "../../grader/report/exports.h"
#include "../../grader/batch/schedule.h"
#include "../../grader/plan/config.h"

/* ---- JSON reader ------------------------------------------------------------------------- */

static void test_json_values(void)
{
    const char *text = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"q\\\"\\\\\\/\\n\\t\\u00e9\\ud83d\\ude00\","
                       " \"o\": {\"x\": {}}, \"e\": []} ";
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->type, JV_OBJECT);
    CU_ASSERT_EQUAL(jv_len(jv_get(v, "a")), 5);
    CU_ASSERT_DOUBLE_EQUAL(jv_num(jv_at(jv_get(v, "a"), 0), 0), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(jv_num(jv_at(jv_get(v, "a"), 1), 0), -2500, 0);
    CU_ASSERT_EQUAL(jv_bool(jv_at(jv_get(v, "a"), 2), 0), 1);
    CU_ASSERT_EQUAL(jv_bool(jv_at(jv_get(v, "a"), 3), 1), 0);
    CU_ASSERT_EQUAL(jv_at(jv_get(v, "a"), 4)->type, JV_NULL);
    CU_ASSERT_STRING_EQUAL(jv_str(jv_get(v, "s"), ""), "q\"\\/\n\t\xc3\xa9\xf0\x9f\x98\x80");
    CU_ASSERT_EQUAL(jv_get(jv_get(v, "o"), "x")->type, JV_OBJECT);
    CU_ASSERT_EQUAL(jv_len(jv_get(v, "e")), 0);
    /* Lookups that miss give NULL and the fallbacks, never a crash. */
    CU_ASSERT_PTR_NULL(jv_get(v, "missing"));
    CU_ASSERT_PTR_NULL(jv_get(jv_get(jv_get(v, "missing"), "deeper"), "still"));
    CU_ASSERT_STRING_EQUAL(jv_str(jv_get(v, "a"), "fb"), "fb");
    CU_ASSERT_DOUBLE_EQUAL(jv_num(NULL, 7), 7, 0);
    CU_ASSERT_PTR_NULL(jv_at(jv_get(v, "a"), 5));
    jv_free(v);
}

static void test_json_rejects(void)
{
    static const char *const bad[] = {
        "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e", "tru", "\"abc",
        "\"a\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u0000\"", "\"tab\there\"",
        "[1] 2", "nan", "{'a': 1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        jv *v = jv_parse(bad[i], strlen(bad[i]), err, sizeof err);
        CU_ASSERT_PTR_NULL(v);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 1, column"));
        jv_free(v);
    }
    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    char err[256];
    CU_ASSERT_PTR_NULL(jv_parse(deep, strlen(deep), err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "deeper"));
    const char *two_lines = "{\n  \"a\": x}";
    CU_ASSERT_PTR_NULL(jv_parse(two_lines, strlen(two_lines), err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2, column 8"));
}

static void test_json_file(void)
{
    char path[] = "/tmp/json-read-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("{\"schema\": 1, \"labs\": [{\"lab\": \"coalescing\", \"score\": 10}]}\n", f);
    fclose(f);
    char err[256];
    jv *v = jv_parse_file(path, 1 << 20, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_STRING_EQUAL(jv_str(jv_get(jv_at(jv_get(v, "labs"), 0), "lab"), ""), "coalescing");
    jv_free(v);
    CU_ASSERT_PTR_NULL(jv_parse_file(path, 10, err, sizeof err)); /* over the cap */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "larger than"));
    remove(path);
    CU_ASSERT_PTR_NULL(jv_parse_file(path, 1 << 20, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
}

/* ---- CSV and rows ------------------------------------------------------------------------ */

static char *csv_of(const char *s)
{
    static char buf[512];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    csv_field(f, s);
    fclose(f);
    return buf;
}

static void test_csv_fields(void)
{
    CU_ASSERT_STRING_EQUAL(csv_of("plain"), "plain");
    CU_ASSERT_STRING_EQUAL(csv_of("Smith, John"), "\"Smith, John\"");
    CU_ASSERT_STRING_EQUAL(csv_of("x\"y"), "\"x\"\"y\"");
    /* controls shown as escapes: every record one line, nothing a terminal acts on */
    CU_ASSERT_STRING_EQUAL(csv_of("new\nline"), "new\\nline");
    CU_ASSERT_STRING_EQUAL(csv_of("a\r\nb, c"), "\"a\\r\\nb, c\"");
    CU_ASSERT_STRING_EQUAL(csv_of("x\x1b[2Jy\x7f\xc2\x9b\xe2\x80\xae"), "x\\x1b[2Jy\\x7f\\u009b\\u202e");
    CU_ASSERT_STRING_EQUAL(csv_of("bad\xffutf8"), "bad\\xffutf8");
    CU_ASSERT_STRING_EQUAL(csv_of("Zo\xc3\xab"), "Zo\xc3\xab");
    CU_ASSERT_STRING_EQUAL(csv_of("o'brien"), "o'brien");
    CU_ASSERT_STRING_EQUAL(csv_of("=1+1"), "'=1+1");
    CU_ASSERT_STRING_EQUAL(csv_of("+1"), "'+1");
    CU_ASSERT_STRING_EQUAL(csv_of("-rf"), "'-rf");
    CU_ASSERT_STRING_EQUAL(csv_of("@SUM(A1)"), "'@SUM(A1)");
    CU_ASSERT_STRING_EQUAL(csv_of("\tx"), "'\\tx");
    CU_ASSERT_STRING_EQUAL(csv_of("\rx"), "'\\rx");
    CU_ASSERT_STRING_EQUAL(csv_of("=1\n+2"), "'=1\\n+2");
    CU_ASSERT_STRING_EQUAL(csv_of("-2+3,\"x\"\r\n=A1"), "\"'-2+3,\"\"x\"\"\\r\\n=A1\"");
    CU_ASSERT_STRING_EQUAL(csv_of("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
    CU_ASSERT_STRING_EQUAL(csv_of("=HYPERLINK(\"a\",\"b\")"), "\"'=HYPERLINK(\"\"a\"\",\"\"b\"\")\"");
    CU_ASSERT_STRING_EQUAL(csv_of(""), "");
}

static void test_row_from_results(void)
{
    const char *text =
        "{\"mode\": \"emu\", \"exit_status\": 1, \"labs\": ["
        " {\"lab\": \"coalescing\", \"number\": \"01\", \"built\": true, \"score\": 4, \"max\": 15,"
        "  \"checks\": [{\"name\": \"1 x 1\", \"verdict\": \"OK\", \"message\": \"\"},"
        "              {\"name\": \"33 x 33\", \"verdict\": \"FAIL\", \"message\": \"3 of 1089 wrong\"},"
        "              {\"name\": \"speed\", \"verdict\": \"SKIP\", \"message\": \"skipped: speed counts only once every correctness check passes\"}]},"
        " {\"lab\": \"banks\", \"number\": \"02\", \"built\": false, \"score\": 0, \"max\": 9, \"checks\": []}]}";
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = "n";
    row.selected[0] = row.selected[1] = row.selected[2] = 1;
    row.lab_max[2] = 7; /* selected but absent from the report: 0 of its table maximum */
    row_from_results(&row, v, 1);
    CU_ASSERT_EQUAL(row.lab_score[0], 4);
    CU_ASSERT_EQUAL(row.lab_max[1], 9);
    CU_ASSERT_EQUAL(row.total, 4);
    CU_ASSERT_EQUAL(row.max, 15 + 9 + 7);
    CU_ASSERT_EQUAL(row.exit_status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(row.reason, "01 coalescing: 33 x 33: FAIL 3 of 1089 wrong"));
    CU_ASSERT_PTR_NOT_NULL(strstr(row.reason, "02 banks: build failed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(row.reason, "not in the report"));
    CU_ASSERT_PTR_NULL(strstr(row.reason, "only once every")); /* follows from the failure */
    jv_free(v);

    memset(&row, 0, sizeof row);
    row.selected[0] = 1;
    row.lab_max[0] = 15;
    row_from_results(&row, NULL, 2); /* no report at all: a full row of zeros and the reason */
    CU_ASSERT_EQUAL(row.total, 0);
    CU_ASSERT_EQUAL(row.max, 15);
    CU_ASSERT_EQUAL(row.exit_status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(row.reason, "no results"));
}

static void test_utf8_clean(void)
{
    int changed;
    char *c = utf8_clean("Zo\xc3\xab", &changed);
    CU_ASSERT_STRING_EQUAL(c, "Zo\xc3\xab");
    CU_ASSERT_EQUAL(changed, 0);
    free(c);
    c = utf8_clean("bad\xff!\xc3", &changed);
    CU_ASSERT_STRING_EQUAL(c, "bad\xef\xbf\xbd!\xef\xbf\xbd");
    CU_ASSERT_EQUAL(changed, 1);
    free(c);
    c = utf8_clean("\xed\xa0\x80", &changed); /* an encoded surrogate is not UTF-8 */
    CU_ASSERT_EQUAL(changed, 1);
    free(c);
}

/* Every export of a row and report whose name, messages and details hold controls, escape
 * sequences and bytes that are not UTF-8: each shows them as escapes (or, in JSON, as \u
 * escapes and U+FFFD), and no line of any starts with text of the student's. */
static void test_exports_hostile(void)
{
    const char *text =
        "{\"mode\": \"emu\", \"seed\": \"0x5eed\", \"exit_status\": 1, \"labs\": ["
        " {\"lab\": \"coalescing\", \"number\": \"01\", \"built\": true, \"score\": 0, \"max\": 15,"
        "  \"checks\": [{\"name\": \"1 x 1\", \"kind\": \"visible\", \"verdict\": \"FAIL\","
        "    \"earned\": 0, \"points\": 1,"
        "    \"message\": \"x\\nScore: 17/17\\r\\u001b[2J\\u009b=cmd|' /C calc'!A0\","
        "    \"detail\": \"\\nScore: 17/17\\u202e\"}]}]}";
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = "=HYPERLINK(\"x\")\n\rScore: 17/17\x1b[0m\xff";
    row.selected[0] = 1;
    row.lab_max[0] = 15;
    row_from_results(&row, v, 1);
    void (*writers[])(FILE *, const grade_row *, const jv *) = {write_gradescope,
        write_junit_suites, write_markdown, write_html};
    for (size_t k = 0; k < sizeof writers / sizeof writers[0] + 1; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (k < sizeof writers / sizeof writers[0])
            writers[k](f, &row, v);
        else
            csv_row(f, &row);
        fclose(f);
        for (size_t i = 0; i < len; i++) {
            const unsigned char c = (unsigned char)buf[i];
            CU_ASSERT(c >= 0x20 || c == '\n' || (c == '\r' && buf[i + 1] == '\n' && k == 4));
            CU_ASSERT(c != 0x7f);
            if (c == '\n') /* no line starts with the student's Score */
                CU_ASSERT(strncmp(buf + i + 1, "Score:", 6) != 0);
        }
        char *clean = utf8_clean(buf, NULL);
        CU_ASSERT_STRING_EQUAL(clean, buf); /* valid UTF-8 */
        CU_ASSERT_PTR_NULL(strstr(buf, "\xc2\x9b"));
        free(clean);
        free(buf);
    }
    jv_free(v);
}

/* The hostile strings of every kind in each export, with the markup of each format: a line
 * break of every sort (LF, CR, VT, FF, NEL, U+2028, U+2029), ANSI, a bidirectional override,
 * U+FFFE (no XML may hold it), bytes that are not UTF-8, `</script>`, `]]>`, a tag, an entity,
 * quotes, `|` and backticks, a formula. XML and HTML show them as text (no tag, entity or
 * section of the student's), Markdown keeps its table's columns and shows no code span, CSV
 * neutralises the formula; a fixed word of the grader's follows each to be found. */
static void test_exports_markup(void)
{
    const char *text =
        "{\"mode\": \"emu\", \"seed\": \"0x5eed\", \"exit_status\": 1, \"labs\": ["
        " {\"lab\": \"coalescing\", \"number\": \"01\", \"built\": true, \"score\": 0,"
        "  \"max\": 15, \"threshold\": 0.8, \"checks\": ["
        "   {\"name\": \"n</script><script>x()</script>|`\", \"kind\": \"visible\","
        "    \"verdict\": \"FAIL\", \"earned\": 0, \"points\": 1,"
        "    \"message\": \"]]><!--<b>&amp;\\\"'|`code`|\\u000bScore: 17/17\\fScore: 1\\u0085"
        "Score: 2\\u2028Score: 3\\u2029Score: 4\\ufffe\\u202e\\u001b]0;t\\u0007\","
        "    \"detail\": \"</small></td></tr></table><h1>x</h1>\"},"
        "   {\"name\": \"speed\", \"kind\": \"speed\", \"verdict\": \"FAIL\", \"earned\": 0,"
        "    \"points\": 5, \"message\": \"</text></svg><svg onload=x()>&lt;\"}]}]}";
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = "=cmd|' /C calc'!A0,</title>]]>`|\xef\xbf\xbe\xc2\x85\xe2\x80\xa8\xff";
    row.selected[0] = 1;
    row.lab_max[0] = 15;
    row_from_results(&row, v, 1);
    enum { GS, JUNIT, MD, HTML, CSV, N };
    for (int k = 0; k < N; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (k == GS)
            write_gradescope(f, &row, v);
        else if (k == JUNIT)
            write_junit_suites(f, &row, v);
        else if (k == MD)
            write_markdown(f, &row, v);
        else if (k == HTML)
            write_html(f, &row, v);
        else
            csv_row(f, &row);
        fclose(f);
        char *clean = utf8_clean(buf, NULL);
        CU_ASSERT_STRING_EQUAL(clean, buf); /* valid UTF-8 */
        free(clean);
        for (size_t i = 0; i < len; i++) { /* no line break but LF (CRLF in CSV), no ESC */
            const unsigned char c = (unsigned char)buf[i];
            CU_ASSERT(c >= 0x20 || c == '\n' || (c == '\r' && buf[i + 1] == '\n' && k == CSV));
        }
        static const char *const never[] = {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9",
                                              "\xe2\x80\xae", "\xef\xbf\xbe", "\x1b"};
        for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
            CU_ASSERT_PTR_NULL(strstr(buf, never[i]));
        if (k == JUNIT || k == HTML) { /* markup of the student's is text */
            static const char *const tags[] = {"<script", "</script", "]]>", "<!--", "<b>&",
                                               "<h1>x", "</title>]]>", "</svg><svg", "onload=x()>",
                                               "&amp;\\\"", "</table><h1>"};
            for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
                CU_ASSERT_PTR_NULL(strstr(buf, tags[i]));
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "&lt;/script&gt;"));
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "]]&gt;&lt;!--&lt;b&gt;&amp;amp;"));
        }
        if (k == HTML) /* one page: its own head, its own title, one chart */
            CU_ASSERT(strstr(buf, "</title>") && !strstr(strstr(buf, "</title>") + 1, "</title>"));
        if (k == MD) { /* every table row keeps its four columns; no code span opens */
            for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                if (line[0] != '|')
                    continue;
                int bars = 0;
                for (const char *p = line; *p && *p != '\n'; p++)
                    bars += *p == '|' && (p == line || p[-1] != '\\');
                CU_ASSERT_EQUAL(bars, 5);
            }
            for (const char *p = buf; (p = strchr(p, '`')); p++)
                CU_ASSERT((p > buf && p[-1] == '\\') || !strncmp(p, "`0x5eed`", 8) || !strncmp(p - 7, "`0x5eed`", 8));
            CU_ASSERT_PTR_NULL(strstr(buf, "<script"));
            CU_ASSERT_PTR_NULL(strstr(buf, "<b>"));
        }
        if (k == CSV) /* the name's cell, quoted for its comma, starts with the quote mark */
            CU_ASSERT_EQUAL(strncmp(buf, "\"'=cmd|", 7), 0);
        if (k == GS) { /* the texts shown, with every break as an escape */
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\\\\x0bScore: 17/17\\\\x0cScore: 1\\\\u0085"));
            CU_ASSERT_PTR_NULL(strstr(buf, "\\u000b"));
        }
        free(buf);
    }
    jv_free(v);
}

/* Work not submitted: the row's reason says "lab 01 not handed in", "not started" or
 * "misplaced" with why (and the fix), in place of the skeleton's own results; the CSV's missing
 * column names the lab; every export says it. With no GPU (mode emu) no export gives a total
 * that reads like a grade: the CSV's total and max are empty, JSON Lines' null, and each says
 * speed was not graded. A lab the grader found not started (results.json's not_started) is
 * named so too. */
static void test_absent_lab(void)
{
#define ABSENT_RESULTS(started) \
    "{\"mode\": \"emu\", \"exit_status\": 2, \"speed_graded\": false, \"correct_passed\": 1," \
    " \"correct_checks\": 1, \"labs\": [{\"lab\": \"coalescing\", \"number\": \"01\"," started \
    " \"built\": true, \"score\": 0, \"max\": 5, \"correct_passed\": 1, \"correct_checks\": 1," \
    " \"checks\": [{\"name\": \"1 x 1\", \"kind\": \"visible\", \"verdict\": \"OK\"," \
    " \"earned\": 0, \"points\": 0, \"message\": \"\"}, {\"name\": \"speed\", \"kind\": \"speed\"," \
    " \"verdict\": \"SKIP\", \"earned\": 0, \"points\": 5, \"message\": \"skipped\"}]}]}"
    const char *text = ABSENT_RESULTS(""), *text_started = ABSENT_RESULTS(" \"not_started\": \"skeleton\",");
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    jv *vs = jv_parse(text_started, strlen(text_started), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
    static const struct {
        int absent;
        const char *says;
    } cases[] = {
        {ABSENT_NO_FILE, "lab 01 not handed in (no submission: no 01-coalescing/coalescing.cu in the submission"},
        {ABSENT_SKELETON, "lab 01 not started (01-coalescing/coalescing.cu is the untouched skeleton"},
        {ABSENT_MISPLACED, "lab 01 misplaced (found lab01/coalescing.cu: it belongs in 01-coalescing/coalescing.cu; move it there"},
        {ABSENT_NOT_STARTED, "lab 01 not started (01-coalescing/coalescing.cu is the workbook"},
        {0, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        grade_row row;
        memset(&row, 0, sizeof row);
        row.name = "student";
        row.selected[0] = 1;
        row.lab_max[0] = 15;
        row.absent[0] = cases[c].absent;
        row.absent_detail[0] = cases[c].absent == ABSENT_MISPLACED ? "lab01/coalescing.cu" : NULL;
        row_from_results(&row, cases[c].absent == ABSENT_NOT_STARTED ? vs : v, 2);
        CU_ASSERT_EQUAL(row.total, 0); /* the skeleton's correctness earns nothing */
        CU_ASSERT_EQUAL(row.speed_graded, 0);
        CU_ASSERT_EQUAL(row.absent[0], cases[c].absent); /* (NOT_STARTED: the grader's finding) */
        for (int k = 0; k < 6; k++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            if (k == 0)
                csv_row(f, &row);
            else if (k == 1)
                jsonl_row(f, &row);
            else if (k == 2)
                write_gradescope(f, &row, v);
            else if (k == 3)
                write_junit_suites(f, &row, v);
            else if (k == 4)
                write_markdown(f, &row, v);
            else
                write_html(f, &row, v);
            fclose(f);
            /* (Markdown escapes its punctuation: compared without the backslashes) */
            char *plain = strdup(buf), *w = plain;
            for (const char *r = buf; *r; r++)
                if (*r != '\\')
                    *w++ = *r;
            *w = 0;
            if (cases[c].says) {
                if (!strstr(plain, cases[c].says))
                    printf("\n  case %zu export %d: %s", c, k, plain);
                CU_ASSERT_PTR_NOT_NULL(strstr(plain, cases[c].says));
            } else {
                CU_ASSERT_PTR_NULL(strstr(plain, "not handed in"));
                CU_ASSERT_PTR_NULL(strstr(plain, "not started"));
            }
            /* no GPU: speed not graded, said in every export; no total */
            CU_ASSERT_PTR_NOT_NULL(strstr(plain, k == 0 ? ",,,1/1 checks,not graded (no GPU),"
                                          : k == 1 ? "\"total\": null, \"max\": null, \"speed_graded\": false"
                                          : "not graded"));
            CU_ASSERT_PTR_NULL(strstr(plain, "Score: 0/"));
            if (k == 0) { /* (tamper_proof is unknown here: an empty isolation column) */
                char want[64];
                snprintf(want, sizeof want, ",graded,,%s%s,", cases[c].says ? "01:" : "",
                         cases[c].says ? absent_word(cases[c].absent) : "");
                CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
            }
            if (k == 1) {
                CU_ASSERT_PTR_NOT_NULL(strstr(buf, cases[c].says ? "\"missing\": [\"01\"]" : "\"missing\": []"));
            }
            free(plain);
            free(buf);
        }
    }
    jv_free(v);
    jv_free(vs);
}

/* A lab the CPU emulator could not run (a valid feature it refuses): the gradebook row says
 * so and names it, Markdown says so, and Gradescope counts none of its points here (max 0,
 * no passed or failed status) and says a GPU grades it. */
static void test_refused_lab(void)
{
    const char *text =
        "{\"mode\": \"emu\", \"seed\": \"0x5eed\", \"exit_status\": 2, \"labs\": ["
        " {\"lab\": \"transpose\", \"number\": \"06\", \"built\": false, \"score\": 0,"
        "  \"max\": 16, \"refused\": \"inline PTX instruction 'ex2.approx.ftz.f32' at line 20\","
        "  \"checks\": [{\"name\": \"1 x 1\", \"kind\": \"visible\", \"verdict\": \"ERROR\","
        "    \"earned\": 0, \"points\": 1, \"message\": \"cannot be checked on the CPU emulator: "
        "inline PTX instruction 'ex2.approx.ftz.f32' at line 20; a GPU grades it\"}]}]}";
    char err[256];
    jv *v = jv_parse(text, strlen(text), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = "n";
    row.selected[5] = 1;
    row_from_results(&row, v, 2);
    CU_ASSERT_EQUAL(row.exit_status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(row.reason, "06 transpose: could not run on the CPU emulator "
                                              "(inline PTX instruction 'ex2.approx.ftz.f32' at line 20); a GPU grades it"));
    CU_ASSERT_PTR_NULL(strstr(row.reason, "build failed"));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    write_gradescope(f, &row, v);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"max_score\": 0"));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"status\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "the CPU emulator could not run this file; a GPU grades it"));
    free(buf);
    f = open_memstream(&buf, &len);
    write_markdown(f, &row, v);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Could not run on the CPU emulator: inline PTX instruction"));
    CU_ASSERT_PTR_NULL(strstr(buf, "did not compile"));
    free(buf);
    jv_free(v);
}

/* ---- course configuration: every value checked, one line naming it ---------------------- */

static void test_config_validation(void)
{
    static const struct {
        const char *set;  /* GRADER_SET */
        const char *want; /* in the error */
    } bad[] = {
        {"coalescing.threshold=nan", "`nan` is not a non-negative number"},
        {"coalescing.threshold=inf", "`inf` is not"},
        {"coalescing.threshold=-0.5", "out of range"},
        {"coalescing.threshold=0", "above 0"},
        {"coalescing.threshold=101", "at most 100"},
        {"coalescing.correct_points=1e12", "0 to 1000"},
        {"coalescing.speed_points=2.5", "whole number"},
        {"coalescing.timeout=0", "above 0"},
        {"coalescing.timeout=-3", "out of range"},
        {"nosuchlab.threshold=0.5", "unknown lab `nosuchlab`"},
        {"06.threshold=0.5", "write transpose.key"},
        {"coalescing.speed=3", "unknown key `speed`"},
        {"coalescing.threshold=", "`` is not"},
        {"coalescing.threshold=0.5x", "`0.5x` is not"},
        {"coalescing.threshold=0x10", "`0x10` is not"},
        {"coalescing.threshold=0.5,banks.timeout=nan", "item 2 `banks.timeout=nan`"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        config c = {.n = 0};
        char err[512] = "";
        const int rc = config_parse_list(&c, bad[i].set, "GRADER_SET", err, sizeof err);
        CU_ASSERT_EQUAL(rc, -1);
        if (!strstr(err, bad[i].want))
            printf("\n  GRADER_SET=%s gave: %s (wanted `%s`)\n", bad[i].set, err, bad[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].want));
        CU_ASSERT_PTR_NULL(strchr(err, '\n'));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "GRADER_SET"));
    }
    config c = {.n = 0};
    char err[512];
    CU_ASSERT_EQUAL(config_parse_list(&c, "*.threshold=0.7, coalescing.speed_points=1000, "
                                          "banks.correct_points=0, tail.timeout=0.5",
                                      "GRADER_SET", err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.n, 4);
    CU_ASSERT_DOUBLE_EQUAL(config_get(&c, "banks", "threshold", 0.5, NULL), 0.7, 0);
    /* The file names its line. */
    char path[] = "/tmp/course-conf-XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    fputs("# ok\ncoalescing.threshold = 0.6\n\nsgemm.threshold = inf\n", f);
    fclose(f);
    config d = {.n = 0};
    CU_ASSERT_EQUAL(config_parse_file(&d, path, err, sizeof err), -1);
    char where[64];
    snprintf(where, sizeof where, "%s:4", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, where));
    remove(path);
}

/* ---- the batch's schedule ---------------------------------------------------------------- */

/* Runs a whole batch through the schedule, ending one running stage at a time in an order
 * drawn from `seed`, and keeps its own account of what runs where (from the actions alone):
 * no GPU slot ever holds two grades, every student is prepared once, then graded once, and
 * never graded before its prepare ended. Returns how many times a prepare ran while a grade
 * ran (the overlap the schedule exists for). */
static int run_schedule(int n, int gpus, int prep_slots, int ahead, unsigned seed)
{
    sched s;
    CU_ASSERT_EQUAL_FATAL(sched_init(&s, n, gpus, prep_slots, ahead), 0);
    int *prepared = calloc((size_t)n + 1, sizeof *prepared);
    int *graded = calloc((size_t)n + 1, sizeof *graded);
    int on_gpu[SCHED_MAX_GPUS];
    for (int g = 0; g < SCHED_MAX_GPUS; g++)
        on_gpu[g] = -1;
    /* running stages: student * 2 + (1 for a grade) */
    int *running = calloc((size_t)2 * n + 2, sizeof *running), nrun = 0;
    int overlap = 0, steps = 0;
    for (;;) {
        sched_action a;
        while ((a = sched_next(&s)).kind == SCHED_PREPARE || a.kind == SCHED_GRADE) {
            if (a.kind == SCHED_PREPARE) {
                CU_ASSERT_EQUAL(prepared[a.student], 0);
                prepared[a.student] = 1; /* started */
                running[nrun++] = a.student * 2;
            } else {
                CU_ASSERT(a.gpu >= 0 && a.gpu < gpus);
                /* the rule: nobody else's grade on this GPU */
                CU_ASSERT_EQUAL(on_gpu[a.gpu], -1);
                CU_ASSERT_EQUAL(prepared[a.student], 2); /* its prepare has ended */
                CU_ASSERT_EQUAL(graded[a.student], 0);
                graded[a.student] = 1;
                on_gpu[a.gpu] = a.student;
                running[nrun++] = a.student * 2 + 1;
            }
        }
        if (a.kind == SCHED_DONE)
            break;
        CU_ASSERT_FATAL(nrun > 0); /* WAIT with nothing running would hang the batch */
        int grades = 0, prepares = 0;
        for (int i = 0; i < nrun; i++)
            running[i] & 1 ? grades++ : prepares++;
        overlap += grades > 0 && prepares > 0;
        seed = seed * 1103515245u + 12345u;
        const int k = (int)((seed >> 8) % (unsigned)nrun);
        const int who = running[k] / 2, grade = running[k] & 1;
        running[k] = running[--nrun];
        if (grade) {
            for (int g = 0; g < gpus; g++)
                if (on_gpu[g] == who)
                    on_gpu[g] = -1;
            graded[who] = 2;
            sched_graded(&s, who);
        } else {
            prepared[who] = 2;
            sched_prepared(&s, who);
        }
        CU_ASSERT_FATAL(++steps < 10 * n + 10);
    }
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(prepared[i], 2);
        CU_ASSERT_EQUAL(graded[i], 2);
    }
    CU_ASSERT_EQUAL(nrun, 0);
    free(prepared);
    free(graded);
    free(running);
    sched_free(&s);
    return overlap;
}

static void test_schedule_one_grade_per_gpu(void)
{
    for (unsigned seed = 1; seed <= 200; seed++) {
        run_schedule(1 + (int)(seed % 23), 1 + (int)(seed % 4), 1 + (int)(seed % 3),
                     1 + (int)(seed % 5), seed);
    }
    run_schedule(0, 1, 1, 1, 7); /* an empty queue is done at once */
}

static void test_schedule_overlaps(void)
{
    /* One GPU, ten students: the next student is built while the GPU grades this one. */
    int overlap = 0;
    for (unsigned seed = 1; seed <= 20; seed++)
        overlap += run_schedule(10, 1, 1, 2, seed) > 0;
    CU_ASSERT_EQUAL(overlap, 20);
    /* Nothing runs ahead of the GPUs past `ahead` students. */
    sched s;
    CU_ASSERT_EQUAL_FATAL(sched_init(&s, 10, 1, 4, 2), 0);
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_PREPARE);
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_PREPARE);
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_WAIT);
    sched_prepared(&s, 1); /* out of order: the first prepared student is graded first */
    sched_action a = sched_next(&s);
    CU_ASSERT_EQUAL(a.kind, SCHED_GRADE);
    CU_ASSERT_EQUAL(a.student, 1);
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_PREPARE); /* student 2, one place freed */
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_WAIT);
    sched_prepared(&s, 0);
    CU_ASSERT_EQUAL(sched_next(&s).kind, SCHED_WAIT); /* the one GPU is busy: 0 waits */
    sched_graded(&s, 1);
    a = sched_next(&s);
    CU_ASSERT_EQUAL(a.kind, SCHED_GRADE);
    CU_ASSERT_EQUAL(a.student, 0);
    CU_ASSERT_EQUAL(a.gpu, 0);
    sched_free(&s);
    CU_ASSERT_EQUAL(sched_init(&s, 3, 0, 1, 1), -1);
    CU_ASSERT_EQUAL(sched_init(&s, 3, SCHED_MAX_GPUS + 1, 1, 1), -1);
}

int main(void)
{
    CU_TestInfo json_tests[] = {
        {"values, escapes, surrogate pairs, lookups", test_json_values},
        {"malformed input refused with line and column", test_json_rejects},
        {"files, and the size cap", test_json_file},
        CU_TEST_INFO_NULL,
    };
    CU_TestInfo book_tests[] = {
        {"CSV fields: RFC 4180 quoting, formulas neutralised", test_csv_fields},
        {"gradebook row from results.json", test_row_from_results},
        {"UTF-8 cleaning for JSON Lines names", test_utf8_clean},
        {"exports of hostile text: no controls, valid UTF-8", test_exports_hostile},
        {"exports of markup, breaks and formulas: text in every format", test_exports_markup},
        {"a lab the CPU emulator refused: labelled could not run, no points counted", test_refused_lab},
        {"work not submitted: named per lab in the row, the CSV and every export", test_absent_lab},
        CU_TEST_INFO_NULL,
    };
    CU_TestInfo config_tests[] = {
        {"every value validated, one line naming it", test_config_validation},
        CU_TEST_INFO_NULL,
    };
    CU_TestInfo schedule_tests[] = {
        {"one grade per GPU at a time, in every completion order", test_schedule_one_grade_per_gpu},
        {"the next students are prepared while a GPU grades", test_schedule_overlaps},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"json_read", NULL, NULL, NULL, NULL, json_tests},
        {"schedule", NULL, NULL, NULL, NULL, schedule_tests},
        {"gradebook", NULL, NULL, NULL, NULL, book_tests},
        {"config", NULL, NULL, NULL, NULL, config_tests},
        CU_SUITE_INFO_NULL,
    };
    if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        return 2;
    }
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
