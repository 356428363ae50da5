/* test_common.c - CUnit tests of common/'s host code: comparison, statistics, inputs, JSON,
 * student text shown as data, host memory asked for on a NUMA node. */
#ifndef _GNU_SOURCE /* memfd_create (CFLAGS defines it already) */
#define _GNU_SOURCE
#endif
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/compare.h"
#include "../common/gpu_watch.h"
#include "../common/json.h"
#include "../common/parallel.h"
#include "../common/rng.h"
#include "../common/stats.h"
#include "../common/text.h"
#include "../common/timing_rule.h"
#include "../common/util.h"
#include "suites.h"

/* ---- compare ---------------------------------------------------------------------------- */

static void test_exact_equal_and_counterexample(void)
{
    float got[5] = {1, 2, 3, 4, 5}, want[5] = {1, 2, 3, 4, 5};
    compare_report r;
    compare_exact_f32(got, want, 5, &r);
    CU_ASSERT_EQUAL(r.n, 5);
    CU_ASSERT_EQUAL(r.n_bad, 0);
    got[3] = 4.5f;
    got[4] = 0.f;
    compare_exact_f32(got, want, 5, &r);
    CU_ASSERT_EQUAL(r.n_bad, 2);
    CU_ASSERT_EQUAL(r.first_bad, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.got, 4.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.expected, 4.0, 0);
}

static void test_exact_is_bitwise(void)
{
    /* -0.0 == 0.0 as floats, but a transpose that turns one into the other moved no data */
    float got[1] = {-0.0f}, want[1] = {0.0f};
    compare_report r;
    compare_exact_f32(got, want, 1, &r);
    CU_ASSERT_EQUAL(r.n_bad, 1);
    /* the poisoned pattern (all bits set, a NaN) never matches a real value */
    unsigned bits = 0xFFFFFFFFu;
    memcpy(&got[0], &bits, 4);
    want[0] = 1.0f;
    compare_exact_f32(got, want, 1, &r);
    CU_ASSERT_EQUAL(r.n_bad, 1);
}

static void test_close_bound_and_nan(void)
{
    float got[4] = {1.0f, 2.0f, NAN, 100.0f};
    double want[4] = {1.0 + 1e-8, 2.0, 3.0, 100.5};
    compare_report r;
    compare_close_f32(got, want, NULL, 4, 1e-6, 0.0, &r);
    CU_ASSERT_EQUAL(r.n_bad, 2);     /* the NaN and 100 vs 100.5 */
    CU_ASSERT_EQUAL(r.first_bad, 2); /* NaN is wrong even though NaN comparisons are false */
    CU_ASSERT(isnan(r.got));
    compare_close_f32(got + 3, want + 3, NULL, 1, 1e-2, 0.0, &r); /* 0.5 <= 1.005 */
    CU_ASSERT_EQUAL(r.n_bad, 0);
    CU_ASSERT(r.worst_ratio > 0.49 && r.worst_ratio < 0.51);
}

static void test_close_uses_scale_and_floor(void)
{
    float got[2] = {0.0005f, -0.5f};
    double want[2] = {0.0, -0.50002};
    double scale[2] = {10.0, 1.0};
    compare_report r;
    compare_close_f32(got, want, scale, 2, 1e-4, 0.0, &r); /* allowed 1e-3 and 1e-4 */
    CU_ASSERT_EQUAL(r.n_bad, 0);
    compare_close_f32(got, want, NULL, 2, 1e-4, 0.0, &r); /* |expected| = 0: nothing allowed */
    CU_ASSERT_EQUAL(r.n_bad, 1);
    CU_ASSERT_EQUAL(r.first_bad, 0);
    compare_close_f32(got, want, NULL, 2, 1e-4, 2e-3, &r); /* the absolute floor saves it */
    CU_ASSERT_EQUAL(r.n_bad, 0);
}

static void test_merge_and_describe(void)
{
    compare_report total = {0}, a, b;
    float g1[3] = {1, 2, 3}, w1[3] = {1, 2, 3};
    float g2[3] = {1, 9, 9}, w2[3] = {1, 2, 3};
    compare_exact_f32(g1, w1, 3, &a);
    compare_exact_f32(g2, w2, 3, &b);
    compare_merge(&total, &a, 0);
    compare_merge(&total, &b, 3);
    CU_ASSERT_EQUAL(total.n, 6);
    CU_ASSERT_EQUAL(total.n_bad, 2);
    CU_ASSERT_EQUAL(total.first_bad, 4);
    char text[256];
    compare_describe(&total, 3, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "2 of 6 elements wrong"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "index 4 (row 1, col 1)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "got 9, expected 2"));
    compare_describe(&a, 0, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "all 3 elements right");
}

/* ---- stats ------------------------------------------------------------------------------ */

static void test_median(void)
{
    double odd[5] = {5, 1, 4, 2, 3}, even[4] = {4, 1, 3, 2};
    CU_ASSERT_DOUBLE_EQUAL(stats_median(odd, 5), 3.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(stats_median(even, 4), 2.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(odd[0], 5.0, 0); /* input untouched */
}

static void test_median_ci_order_statistics(void)
{
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = 100 - i; /* 1..100 in reverse */
    double lo, hi;
    stats_median_ci(x, 100, &lo, &hi);
    /* ranks 50 -+ 1.96*10/2 = 40.2 .. 59.8 -> floor 40, ceil 60 */
    CU_ASSERT_DOUBLE_EQUAL(lo, 40.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 60.0, 0);
    CU_ASSERT(lo <= stats_median(x, 100) && stats_median(x, 100) <= hi);
    double few[3] = {2, 9, 4};
    stats_median_ci(few, 3, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 2.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 9.0, 0);
}

static void test_ci_covers_true_median(void)
{
    /* Over many draws of 60 samples from a skewed distribution whose median is ln 2 (the
     * exponential), the 95% interval must contain it about 95% of the time. */
    rng r;
    rng_seed(&r, 42);
    int covered = 0;
    const int trials = 2000;
    for (int t = 0; t < trials; t++) {
        double x[60], lo, hi;
        for (int i = 0; i < 60; i++)
            x[i] = -log(1.0 - rng_unit(&r));
        stats_median_ci(x, 60, &lo, &hi);
        covered += lo <= log(2.0) && log(2.0) <= hi;
    }
    CU_ASSERT(covered > 0.93 * trials && covered < 0.985 * trials);
}

static void test_position_and_precision(void)
{
    CU_ASSERT_EQUAL(stats_position(0.81, 0.85, 0.8), RATIO_ABOVE);
    CU_ASSERT_EQUAL(stats_position(0.70, 0.79, 0.8), RATIO_BELOW);
    CU_ASSERT_EQUAL(stats_position(0.78, 0.82, 0.8), RATIO_STRADDLES);
    CU_ASSERT_TRUE(stats_precise(1.0, 0.995, 1.005, 0.01));
    CU_ASSERT_FALSE(stats_precise(1.0, 0.97, 1.01, 0.01));
    double num[3] = {2, 3, 4}, den[3] = {1, 3, 8}, out[3];
    stats_ratios(num, den, 3, out);
    CU_ASSERT_DOUBLE_EQUAL(out[0], 2.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(out[2], 0.5, 0);
}

/* ---- the stopping rule of a speed check's timed phase ------------------------------------ */

/* One case of timing_rule_stop: the first n of ratio[] (min_rounds 6, precision 1%, soft cap
 * 15 s) against threshold, after `elapsed` seconds; whether it stops, and why. */
typedef struct rule_case {
    const char *what;
    double ratio[8];
    int n;
    double threshold, elapsed;
    int stops;
    timing_stop why;
} rule_case;

#define SKELETON {0.0100, 0.0101, 0.0099, 0.0100}      /* an SGEMM skeleton, mark 0.5 */
#define ONE_UP {0.10, 0.30, 0.10, 0.10, 0.10}          /* one round at 0.6 x 0.5 */
#define EVEN {1.0, 1.0, 1.0, 1.0, 1.0}
#define TIGHT {1.000, 1.004, 0.996, 1.002, 0.998, 1.001}
#define NEAR {0.503, 0.505, 0.504, 0.506, 0.503, 0.505}
#define ABOVE {0.99, 0.97, 1.01, 0.975, 1.005, 0.985}  /* lab 05's solution, mark 0.80 */
#define CLOSE {0.99, 0.95, 1.01, 0.975, 1.005, 0.985}  /* one at 0.95 < 1.2 x 0.80 */
#define BELOW {0.55, 0.60, 0.50, 0.62, 0.52, 0.58}     /* < 0.8 x 0.80, > 0.6 x it */
#define STRADDLE {0.98, 1.03, 0.99, 1.02, 0.97, 1.01, 1.00, 0.99}

static const rule_case rule_cases[] = {
    {"far below, two rounds: never a verdict", SKELETON, 2, 0.5, 1, 0, STOP_FIXED},
    {"far below, three rounds: clear", SKELETON, 3, 0.5, 1, 1, STOP_CLEAR},
    {"one round of three at 0.6 of the mark: measured on", ONE_UP, 3, 0.5, 1, 0, STOP_FIXED},
    {"... and at five", ONE_UP, 5, 0.5, 1, 0, STOP_FIXED},
    {"above the mark, three rounds: never early", EVEN, 3, 0.5, 1, 0, STOP_FIXED},
    {"above the mark, five rounds: never before six", EVEN, 5, 0.5, 1, 0, STOP_FIXED},
    {"within 1%, five rounds", TIGHT, 5, 0.5, 1, 0, STOP_FIXED},
    {"within 1%, six rounds: precise", TIGHT, 6, 0.5, 1, 1, STOP_PRECISE},
    {"within 1% just above the mark: precise", NEAR, 6, 0.5, 1, 1, STOP_PRECISE},
    {"20% above the mark, spread 4%, five rounds", ABOVE, 5, 0.8, 1, 0, STOP_FIXED},
    {"20% above the mark, spread 4%, six rounds: clear", ABOVE, 6, 0.8, 1, 1, STOP_CLEAR},
    {"one of six within 1.2 x the mark: measured on", CLOSE, 6, 0.8, 1, 0, STOP_FIXED},
    {"... until the soft cap", CLOSE, 6, 0.8, 15, 1, STOP_SOFT_CAP},
    {"below 0.8 x the mark, three rounds: not early", BELOW, 3, 0.8, 1, 0, STOP_FIXED},
    {"below 0.8 x the mark, six rounds: clear", BELOW, 6, 0.8, 1, 1, STOP_CLEAR},
    {"an interval on the mark", STRADDLE, 6, 1.0, 1, 0, STOP_FIXED},
    {"an interval on the mark, past the soft cap: on to the hard cap", STRADDLE, 8, 1.0, 40, 0,
     STOP_FIXED},
    {"no mark, spread", STRADDLE, 8, 0, 1, 0, STOP_FIXED},
    {"no mark, spread, the soft cap", STRADDLE, 8, 0, 15, 1, STOP_SOFT_CAP},
    {"no mark, within 1%: precise", TIGHT, 6, 0, 1, 1, STOP_PRECISE},
};

static void test_stopping_rule(void)
{
    /* the ratios it watches: each less the offset's median, per call */
    const double ref[] = {4.2, 4.3, 4.1}, stu[] = {100.2, 100.3, 100.4}, off[] = {0.3, 0.2, 0.1};
    double ratio[3];
    timing_rule_ratios(ref, stu, off, 3, 4, 1, ratio); /* the reference 4 calls a unit, 1 */
    CU_ASSERT_DOUBLE_EQUAL(ratio[0], (4.0 / 4) / 100.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ratio[2], (3.9 / 4) / 100.2, 1e-12);
    timing_rule_ratios(ref, stu, NULL, 3, 0, 0, ratio); /* no offset, one call each */
    CU_ASSERT_DOUBLE_EQUAL(ratio[1], 4.3 / 100.3, 1e-12);

    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        const rule_case *c = &rule_cases[i];
        timing_stop why = STOP_FIXED;
        const int stops = timing_rule_stop(c->ratio, c->n, 6, c->threshold, 0.01, c->elapsed,
                                           15.0, &why);
        if (stops != c->stops || (stops && why != c->why))
            fprintf(stderr, "stopping rule, '%s': stops %d (why %d), expected %d (why %d)\n",
                    c->what, stops, (int)why, c->stops, (int)c->why);
        CU_ASSERT_EQUAL(stops, c->stops);
        if (stops && c->stops)
            CU_ASSERT_EQUAL(why, c->why);
    }
}

/* ---- rng ----------------------------------------------------------------------------------- */

static void test_rng_reproducible_and_ranged(void)
{
    rng a, b;
    rng_seed(&a, 7);
    rng_seed(&b, 7);
    for (int i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(rng_u64(&a), rng_u64(&b));
    CU_ASSERT_NOT_EQUAL(rng_derive(7, 1), rng_derive(7, 2));
    CU_ASSERT_EQUAL(rng_derive(7, 1), rng_derive(7, 1));
    int seen_lo = 0, seen_hi = 0;
    for (int i = 0; i < 10000; i++) {
        long long v = rng_range(&a, -3, 3);
        CU_ASSERT(v >= -3 && v <= 3);
        seen_lo |= v == -3;
        seen_hi |= v == 3;
    }
    CU_ASSERT(seen_lo && seen_hi);
    float x[1000];
    fill_uniform_f32(x, 1000, 99, -1.f, 1.f);
    int zeros = 0, neg = 0;
    for (int i = 0; i < 1000; i++) {
        CU_ASSERT(x[i] >= -1.f && x[i] < 1.f);
        zeros += x[i] == 0.f;
        neg += x[i] < 0;
    }
    CU_ASSERT(zeros < 3);
    CU_ASSERT(neg > 400 && neg < 600);
}

/* ---- json ---------------------------------------------------------------------------------- */

static char *json_text(void (*write)(json_writer *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_writer w;
    json_init(&w, f);
    write(&w);
    fclose(f);
    return buf;
}

static void write_escapes(json_writer *w)
{
    json_object_begin(w, NULL);
    json_string(w, "s", "a\"b\\c\nd\te\001f/é");
    json_number(w, "nan", NAN);
    json_int(w, "i", -42);
    json_bool(w, "t", 1);
    json_string(w, "null", NULL);
    json_array_begin(w, "a");
    json_number(w, NULL, 0.5);
    json_number(w, NULL, 2);
    json_array_end(w);
    json_array_begin(w, "empty");
    json_array_end(w);
    json_object_end(w);
}

static void test_json_escaping_and_shape(void)
{
    char *t = json_text(write_escapes);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"s\": \"a\\\"b\\\\c\\nd\\te\\u0001f/é\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"nan\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"i\": -42"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"t\": true"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"null\": null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "0.5,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"empty\": []"));
    /* commas: exactly one between each of the 7 members */
    int depth = 0, commas_top = 0;
    for (char *p = t; *p; p++) {
        if (*p == '"') { /* skip strings */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\') p++;
            continue;
        }
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        commas_top += depth == 1 && *p == ',';
    }
    CU_ASSERT_EQUAL(depth, 0);
    CU_ASSERT_EQUAL(commas_top, 6);
    free(t);
}

/* ---- text: student text shown as data ---------------------------------------------------- */

static char *visible(const char *s, int flags)
{
    static char buf[4096];
    CU_ASSERT_EQUAL(text_visible(buf, sizeof buf, s, flags), 1);
    return buf;
}

/* 1 if s is valid UTF-8 holding no character text_is_control() names (what a terminal shows
 * as itself, on one line). */
static int all_shown_as_itself(const char *s, int newlines_allowed)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left > 0) {
        unsigned cp;
        const int n = utf8_seq(p, left, &cp);
        if (n == 0 || (text_is_control(cp) && !(newlines_allowed && cp == '\n')))
            return 0;
        p += n, left -= (size_t)n;
    }
    return 1;
}

/* Every class of dangerous input, and what it must read as. */
static const struct {
    const char *in, *shown;
} visible_cases[] = {
    {"plain text, 1 + 1 = 2 (100%)", "plain text, 1 + 1 = 2 (100%)"},
    {"Zo\xc3\xab \xe5\xb1\xb1\xe7\x94\xb0 \xf0\x9f\x99\x82", "Zo\xc3\xab \xe5\xb1\xb1\xe7\x94\xb0 \xf0\x9f\x99\x82"},
    /* a line of its own: newline, CR (a terminal's column 0), and what splitlines() breaks at */
    {"ok\nScore: 17/17", "ok\\nScore: 17/17"},
    {"ok\rScore: 17/17", "ok\\rScore: 17/17"},
    {"a\r\nb\tc", "a\\r\\nb\\tc"},
    {"v\vf\ffs\x1cgs\x1drs\x1e", "v\\x0bf\\x0cfs\\x1cgs\\x1drs\\x1e"},
    /* escape sequences: colour, clear screen, erase line, cursor up, a title (OSC ... BEL) */
    {"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
    {"\x1b[2J\x1b[H\x1b[2K\x1b[1A", "\\x1b[2J\\x1b[H\\x1b[2K\\x1b[1A"},
    {"\x1b]0;title\x07", "\\x1b]0;title\\x07"},
    /* backspace over the grader's text, NUL's neighbours, DEL */
    {"FAIL\b\b\b\bOK  ", "FAIL\\x08\\x08\\x08\\x08OK  "},
    {"\x01\x7f", "\\x01\\x7f"},
    /* C1 controls as UTF-8 (CSI, NEL) and as single bytes (not UTF-8) */
    {"\xc2\x9b""2J \xc2\x85next", "\\u009b2J \\u0085next"},
    {"\x9b""2J \x85", "\\x9b2J \\x85"},
    /* line and paragraph separators, bidirectional controls ("Trojan Source") */
    {"a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", "a\\u2028b\\u2029c"},
    {"\xe2\x80\xae" "71/71 :erocS", "\\u202e71/71 :erocS"},
    {"\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c", "\\u2066x\\u2069\\u200f\\u061c"},
    /* not UTF-8: a stray byte, a continuation byte, a cut sequence, overlong forms, a
     * surrogate, beyond U+10FFFF, lead bytes that never start a character */
    {"bad\xff!", "bad\\xff!"},
    {"\x80x", "\\x80x"},
    {"cut\xe2\x82", "cut\\xe2\\x82"},
    {"\xc0\xaf\xe0\x80\xaf", "\\xc0\\xaf\\xe0\\x80\\xaf"},
    {"\xed\xa0\x80", "\\xed\\xa0\\x80"},
    {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
    {"\xf5\x80\x80\xf8", "\\xf5\\x80\\x80\\xf8"},
    /* confusables: a letter drawn like a Latin one where its word passes for Latin (a Cyrillic
     * a in "Ivan", a wholly look-alike Cyrillic "Ace", a Cyrillic o in a file name), Latin in
     * another form (fullwidth letters, the Kelvin sign); a name in its own script as written
     * (Cyrillic "Ivan", Greek "Eleni": letters no Latin one looks like) */
    {"Iv\xd0\xb0n", "Iv\\u0430n"},
    {"\xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd", "\xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd"},
    {"\xd0\x90\xd1\x81\xd0\xb5 Lee", "\\u0410\\u0441\\u0435 Lee"},
    {"lab01/c\xd0\xbe" "alescing.cu", "lab01/c\\u043ealescing.cu"},
    {"\xce\x95\xce\xbb\xce\xad\xce\xbd\xce\xb7", "\xce\x95\xce\xbb\xce\xad\xce\xbd\xce\xb7"},
    {"\xef\xbd\x81\xef\xbd\x82 5\xe2\x84\xaa", "\\uff41\\uff42 5\\u212a"},
    /* a backslash stays one: the escapes are for reading */
    {"C:\\path \\x1b", "C:\\path \\x1b"},
};

static void test_text_visible_classes(void)
{
    for (size_t i = 0; i < sizeof visible_cases / sizeof visible_cases[0]; i++) {
        const char *got = visible(visible_cases[i].in, 0);
        CU_ASSERT_STRING_EQUAL(got, visible_cases[i].shown);
        if (strcmp(got, visible_cases[i].shown))
            fprintf(stderr, "\n  case %zu: got \"%s\", want \"%s\"\n", i, got,
                    visible_cases[i].shown);
        CU_ASSERT(all_shown_as_itself(got, 0));
        /* shown twice reads as shown once */
        char again[4096];
        snprintf(again, sizeof again, "%s", got);
        CU_ASSERT_STRING_EQUAL(visible(again, 0), again);
    }
}

static void test_text_every_byte(void)
{
    /* every byte value, alone and after each lead byte: what comes out is always shown as
     * itself, on one line */
    for (int a = 1; a < 256; a++)
        for (int b = 0; b < 256; b += 17) {
            char in[4] = {(char)a, (char)b, 'x', 0};
            CU_ASSERT(all_shown_as_itself(visible(in, 0), 0));
        }
}

static void test_text_newlines_kept_and_nul(void)
{
    CU_ASSERT_STRING_EQUAL(visible("line 1\nline\r2\x1b[0m\n", TEXT_KEEP_NEWLINES),
                           "line 1\nline\\r2\\x1b[0m\n");
    CU_ASSERT(all_shown_as_itself(visible("a\nb\rc\xe2\x80\xa8", TEXT_KEEP_NEWLINES), 1));
    /* text with NUL bytes in it (a log, a report read whole) */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    text_put_n(f, "a\0b\x1b\nc", 6, 0);
    text_put(f, "|\xff", 0);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "a\\x00b\\x1b\\nc|\\xff");
    free(buf);
    char *d = text_visible_dup("\x1b\x1b\x1b", 0); /* the largest growth: 4 bytes per byte */
    CU_ASSERT_STRING_EQUAL(d, "\\x1b\\x1b\\x1b");
    free(d);
}

static void test_text_cut_whole(void)
{
    char out[16];
    /* fits exactly */
    CU_ASSERT_EQUAL(text_visible(out, 6, "abcde", 0), 1);
    CU_ASSERT_STRING_EQUAL(out, "abcde");
    /* cut: never inside an escape or a character, and it says so */
    CU_ASSERT_EQUAL(text_visible(out, 10, "ab\x1b\x1b\x1b", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "ab\\x1b...");
    CU_ASSERT_EQUAL(text_visible(out, 9, "\xe5\xb1\xb1\xe7\x94\xb0\xe5\xb1\xb1", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "\xe5\xb1\xb1...");
    CU_ASSERT_EQUAL(text_visible(out, 4, "abcdef", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "...");
    CU_ASSERT_EQUAL(text_visible(out, 3, "abcdef", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "ab");
    CU_ASSERT_EQUAL(text_visible(out, 1, "abcdef", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "");
    for (size_t cap = 1; cap <= sizeof out; cap++) {
        text_visible(out, cap, "\x1b[2J\r\xe2\x80\xaeScore\xff", 0);
        CU_ASSERT(strlen(out) < cap && all_shown_as_itself(out, 0));
    }
}

/* A log's lines read whole whatever their length: a line longer than the buffer is one line
 * (its start kept, marked cut), a line of exactly the buffer is whole, a NUL inside a line
 * ends no line, and the last line may lack its newline. */
static void test_text_log_line(void)
{
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    fputs("abc\n", f);         /* 1: short */
    fputs("0123456\n", f);     /* 2: 7 bytes and the newline: fills an 8-byte buffer less its NUL */
    fputs("0123456789ab\n", f); /* 3: longer: cut */
    fputc('p', f), fputc(0, f), fputs("qrstuvwxyz\n", f); /* 4: a NUL inside, longer */
    fputs("\n", f);            /* 5: empty */
    fputs("end", f);            /* 6: no newline */
    rewind(f);
    char buf[8];
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 1);
    CU_ASSERT_STRING_EQUAL(buf, "abc\n");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 1);
    CU_ASSERT_STRING_EQUAL(buf, "0123456");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 2);
    CU_ASSERT_STRING_EQUAL(buf, "0123456");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 2);
    CU_ASSERT_STRING_EQUAL(buf, "p");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 1);
    CU_ASSERT_STRING_EQUAL(buf, "\n");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 1);
    CU_ASSERT_STRING_EQUAL(buf, "end");
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(text_log_line(f, buf, sizeof buf), 0);
    fclose(f);
}

static void test_utf8_seq(void)
{
    unsigned cp = 0;
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"A", 1, &cp), 1);
    CU_ASSERT_EQUAL(cp, 'A');
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xc3\xab", 2, &cp), 2);
    CU_ASSERT_EQUAL(cp, 0xEB);
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xe2\x80\xae", 3, &cp), 3);
    CU_ASSERT_EQUAL(cp, 0x202E);
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp), 4);
    CU_ASSERT_EQUAL(cp, 0x10FFFF);
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xe2\x80\xae", 2, &cp), 0); /* cut by n */
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xc1\xbf", 2, &cp), 0);
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xf0\x8f\xbf\xbf", 4, &cp), 0);
    CU_ASSERT_EQUAL(utf8_seq((const unsigned char *)"\xf7\xbf\xbf", 3, &cp), 0);
}

static void write_hostile(json_writer *w)
{
    json_object_begin(w, NULL);
    json_string(w, "m", "\x1b[2J\xc2\x9b\xe2\x80\xae\xe2\x80\xa8ok\xff\xed\xa0\x80 \xf0\x9f\x99\x82");
    json_string(w, "name", "Iv\xd0\xb0n \xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd"); /* escaped as a terminal shows it */
    json_object_end(w);
}

static void test_json_hostile_text(void)
{
    char *t = json_text(write_hostile);
    /* controls escaped, each byte that is not UTF-8 a U+FFFD, valid characters as they are */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"\\u001b[2J\\u009b\\u202e\\u2028ok\\ufffd\\ufffd\\ufffd\\ufffd "
                                     "\xf0\x9f\x99\x82\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"Iv\\u0430n \xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd\""));
    CU_ASSERT(all_shown_as_itself(strchr(t, '"'), 1));
    free(t);
}

/* parallel_for: every item once, whatever the threads; a result that depends on the item
 * alone is the same on 1, 3 and all the CPU's threads. */
typedef struct par_ctx {
    int *seen;     /* calls per item */
    double *value; /* what item i wrote */
} par_ctx;

static void par_item(void *ctx, size_t i)
{
    par_ctx *c = (par_ctx *)ctx;
    __atomic_add_fetch(&c->seen[i], 1, __ATOMIC_RELAXED);
    c->value[i] = (double)i * 0.5 + 1.0;
}

static void test_parallel_for_each_item_once(void)
{
    const size_t n = 1001;
    const int counts[] = {1, 3, 0, 64};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        par_ctx c = {calloc(n, sizeof(int)), calloc(n, sizeof(double))};
        parallel_for(n, counts[k], par_item, &c);
        int once = 1, right = 1;
        for (size_t i = 0; i < n; i++) {
            once &= c.seen[i] == 1;
            right &= c.value[i] == (double)i * 0.5 + 1.0;
        }
        CU_ASSERT(once);
        CU_ASSERT(right);
        free(c.seen);
        free(c.value);
    }
    par_ctx none = {NULL, NULL};
    parallel_for(0, 0, par_item, &none); /* no item: no call */
}

/* ---- host memory on a NUMA node ------------------------------------------------------------ */

/* The policy /proc/self/numa_maps shows for the mapping at p ("prefer:0", "default"), in out;
 * 0 if the kernel shows none (no NUMA support). */
static int numa_policy_of(const void *p, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/numa_maps", "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long at = strtoul(line, NULL, 16);
        const char *sp = strchr(line, ' ');
        if (at == (unsigned long)p && sp) {
            snprintf(out, len, "%.*s", (int)strcspn(sp + 1, " \n"), sp + 1);
            found = 1;
        }
    }
    if (f)
        fclose(f);
    return found;
}

/* A fresh memfd of `bytes`, mapped shared (as the grader's shared host memory is), and a second
 * mapping of it in *again (a worker's) */
static char *shared_mapping(size_t bytes, char **again)
{
    const int fd = memfd_create("test-numa", MFD_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, (off_t)bytes) == 0);
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    *again = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CU_ASSERT_FATAL(p != MAP_FAILED && *again != MAP_FAILED);
    return p;
}

static void test_host_memory_prefer_node(void)
{
    const size_t bytes = 4 << 20;
    char *p_again, *other_again;
    char *p = shared_mapping(bytes, &p_again), *other = shared_mapping(bytes, &other_again);
    CU_ASSERT_EQUAL(host_memory_prefer_node(other, bytes, -1), 0); /* no node: nothing asked */
    CU_ASSERT_EQUAL(host_memory_prefer_node(p, bytes, 1 << 20), EINVAL); /* no such node */
    const int e = host_memory_prefer_node(p, bytes, 0); /* node 0: every Linux host has it */
    char policy[64];
    if (e == ENOSYS || !numa_policy_of(p, policy, sizeof policy)) {
        /* a kernel built without NUMA: the pages go where they would have, as documented */
        CU_ASSERT(e == 0 || e == ENOSYS);
    } else {
        CU_ASSERT_EQUAL(e, 0);
        memset(p, 1, bytes); /* the pages made, on node 0 */
        CU_ASSERT_STRING_EQUAL(policy, "prefer:0");
        /* the policy lives with the memory, not the mapping: a worker's mapping of it has it */
        CU_ASSERT(numa_policy_of(p_again, policy, sizeof policy));
        CU_ASSERT_STRING_EQUAL(policy, "prefer:0");
        CU_ASSERT(numa_policy_of(other, policy, sizeof policy)); /* asked for nothing */
        CU_ASSERT_STRING_EQUAL(policy, "default");
    }
    munmap(p, bytes);
    munmap(p_again, bytes);
    munmap(other, bytes);
    munmap(other_again, bytes);
}

/* gpu_watch: what a timed phase's readings add up to, from readings made up by hand (the
 * clocks and NVML's reason bits as an H200 reports them). */
static gpu_reading busy(unsigned sm, unsigned long long reasons, unsigned long long power_ns)
{
    gpu_reading r = {1, sm, 3201, reasons, power_ns, 0, 45};
    return r;
}

static void test_gpu_watch_span(void)
{
    char why[256];
    gpu_span s;
    gpu_span_clear(&s);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), -1); /* no NVML: not watched */
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "not watched"));
    gpu_reading missing = {0};
    gpu_span_add(&s, &missing);
    gpu_reading one = busy(1980, 0, 100);
    gpu_span_add(&s, &one);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), -1); /* one reading is no span */
    /* quiet: the clock steady at the top, no reason, the running totals still */
    for (int i = 0; i < 5; i++) {
        gpu_reading r = busy(1980 - (unsigned)(i % 2) * 15, 0, 100); /* 0.8% of jitter */
        gpu_span_add(&s, &r);
    }
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "quiet"));
    /* an idle reading (between rounds) says nothing of the clock under load */
    gpu_reading idle = busy(345, 0x1, 100);
    gpu_span_add(&s, &idle);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 0);
    /* the power cap's running total grew, though its bit had let go by the next reading */
    gpu_reading later = busy(1980, 0, 2500000);
    gpu_span_add(&s, &later);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "the power cap"));
    /* a reason seen at a reading: the thermal slowdown, named with the clock's range */
    gpu_span_clear(&s);
    gpu_reading a = busy(1980, 0, 0), b = busy(1650, 0x40, 0);
    gpu_span_add(&s, &a);
    gpu_span_add(&s, &b);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "hardware thermal"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "1650-1980 MHz"));
    /* no limit named, but the clock moved by more than 2% (4%) */
    gpu_span_clear(&s);
    gpu_reading c = busy(1980, 0, 0), d = busy(1900, 0, 0);
    gpu_span_add(&s, &c);
    gpu_span_add(&s, &d);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "moved"));
    /* not limits: an application clock setting (0x2) and sync boost (0x10) */
    gpu_span_clear(&s);
    gpu_reading e = busy(1980, 0x2 | 0x10, 0), f = busy(1980, 0x2, 0);
    gpu_span_add(&s, &e);
    gpu_span_add(&s, &f);
    CU_ASSERT_EQUAL(gpu_span_verdict(&s, why, sizeof why), 0);
    /* no GPU here: the watch does not open, and a reading is not ok */
    CU_ASSERT_EQUAL(gpu_watch_open(NULL), 0);
    gpu_reading none;
    gpu_watch_read(&none);
    CU_ASSERT_EQUAL(none.ok, 0);
}

static CU_TestInfo common_tests[] = {
    {"parallel_for: every item once, on any number of threads", test_parallel_for_each_item_once},
    {"exact comparison finds the first bad element", test_exact_equal_and_counterexample},
    {"exact comparison is bitwise", test_exact_is_bitwise},
    {"close comparison: bound and NaN", test_close_bound_and_nan},
    {"close comparison: scale and absolute floor", test_close_uses_scale_and_floor},
    {"reports merge and read well", test_merge_and_describe},
    {"median", test_median},
    {"median interval from order statistics", test_median_ci_order_statistics},
    {"median interval covers ~95%", test_ci_covers_true_median},
    {"threshold position and precision", test_position_and_precision},
    {"stopping rule: far below at three rounds, precise or clear at six, on while on the mark",
     test_stopping_rule},
    {"rng is reproducible and in range", test_rng_reproducible_and_ranged},
    {"json escaping and shape", test_json_escaping_and_shape},
    {"json: controls escaped, text that is not UTF-8 replaced", test_json_hostile_text},
    {"text: every class of control shown as an escape", test_text_visible_classes},
    {"text: every byte comes out shown as itself", test_text_every_byte},
    {"text: kept newlines, NUL bytes, growth", test_text_newlines_kept_and_nul},
    {"text: cut at a whole character, marked", test_text_cut_whole},
    {"text: a log's lines read whole, whatever their length", test_text_log_line},
    {"text: UTF-8 sequences and code points", test_utf8_seq},
    {"host memory asked for on a NUMA node", test_host_memory_prefer_node},
    {"gpu watch: a phase's clocks and limits, quiet or throttled", test_gpu_watch_span},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo common_suite = {"common", NULL, NULL, NULL, NULL, common_tests};
