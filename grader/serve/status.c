/* status.c - TRUSTED: the instructor's status page (/status, and /api/status as JSON): the queue,
 * each grading slot (its GPU and what it grades), and each student's latest and best submission
 * per lab. Refreshed every 5 s. Names are the roster's, shown escaped. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

typedef struct buf { char *s; size_t len, cap; } buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        const int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 64;
        b->s = realloc(b->s, b->cap);
    }
}

static void put_html(buf *b, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '<') put(b, "&lt;");
        else if (*p == '>') put(b, "&gt;");
        else if (*p == '&') put(b, "&amp;");
        else if (*p == '"') put(b, "&quot;");
        else if (*p == '\'') put(b, "&#39;");
        else if (*p < 32) put(b, "?");
        else put(b, "%c", *p);
    }
}

/* A submission's cell: "#12 done 3/5 (10/10 checks) exit 2 late". */
static void cell(buf *b, sqlite3_stmt *st)
{
    put(b, "#%lld %s", (long long)sqlite3_column_int64(st, 2), (const char *)sqlite3_column_text(st, 3));
    if (!strcmp((const char *)sqlite3_column_text(st, 3), "done")) {
        if (sqlite3_column_int(st, 9) && sqlite3_column_type(st, 5) != SQLITE_NULL)
            put(b, " %g/%g", sqlite3_column_double(st, 5), sqlite3_column_double(st, 6));
        if (sqlite3_column_type(st, 7) != SQLITE_NULL)
            put(b, " (%d/%d checks)", sqlite3_column_int(st, 7), sqlite3_column_int(st, 8));
        put(b, " exit %d", sqlite3_column_int(st, 4));
    }
    if (sqlite3_column_int(st, 10))
        put(b, " late");
}

/* A done submission's standing: its score, then correctness checks passed. */
static double standing(sqlite3_stmt *st)
{
    if (strcmp((const char *)sqlite3_column_text(st, 3), "done"))
        return -1;
    return sqlite3_column_double(st, 5) * 1e6 + sqlite3_column_int(st, 7);
}

static void students_table(buf *b, sqlite3 *db)
{
    put(b, "<h2>Students</h2>\n<table id=\"students\"><thead><tr><th>student</th><th>lab</th><th>latest</th><th>best</th><th>submissions</th></tr></thead><tbody>\n");
    sqlite3_stmt *st, *best = NULL;
    sqlite3_prepare_v2(db,
        "SELECT st.name, su.lab, su.id, su.state, su.exit_code, su.score, su.max, su.correct_passed, su.correct_checks,"
        " su.speed_graded, su.late FROM students st LEFT JOIN submissions su ON su.student=st.id"
        " ORDER BY st.name, su.lab, su.id", -1, &st, NULL);
    char name[256] = "", lab[16] = "";
    int n = 0, have = 0, rc = sqlite3_step(st);
    buf latest = {0}, top = {0};
    double top_standing = -2;
    while (have || rc == SQLITE_ROW) {
        const int row = rc == SQLITE_ROW;
        const char *nm = row ? (const char *)sqlite3_column_text(st, 0) : "";
        const char *lb = row && sqlite3_column_type(st, 1) != SQLITE_NULL ? (const char *)sqlite3_column_text(st, 1) : "";
        if (have && (!row || strcmp(nm, name) || strcmp(lb, lab))) { /* a (student, lab) ends */
            put(b, "<tr><td>");
            put_html(b, name);
            put(b, "</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n", *lab ? lab : "-",
                latest.s ? latest.s : "-", top.s ? top.s : "-", n);
            free(latest.s), free(top.s);
            latest = (buf){0}, top = (buf){0};
            n = 0, have = 0, top_standing = -2;
        }
        if (!row)
            break;
        snprintf(name, sizeof name, "%s", nm);
        snprintf(lab, sizeof lab, "%s", lb);
        have = 1;
        if (*lb) {
            n++;
            latest.len = 0;
            cell(&latest, st);
            if (standing(st) > top_standing && standing(st) >= 0) {
                top_standing = standing(st);
                top.len = 0;
                cell(&top, st);
            }
        }
        rc = sqlite3_step(st);
    }
    (void)best;
    sqlite3_finalize(st);
    put(b, "</tbody></table>\n");
}

static long long count0(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long long n = 0;
    sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

char *status_html(sqlite3 *db)
{
    buf b = {0};
    put(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"5\">"
            "<title>Course server: status</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
            "tbody tr:nth-child(odd){background:#f3f3f3}</style></head><body>\n<h1>Course server: status</h1>\n");
    store_lock();
    put(&b, "<h2>Queue</h2>\n<p id=\"queue\">%lld queued, %lld grading, %lld graded</p>\n",
        count0(db, "SELECT count(*) FROM submissions WHERE state='queued'"),
        count0(db, "SELECT count(*) FROM submissions WHERE state='grading'"),
        count0(db, "SELECT count(*) FROM submissions WHERE state='done'"));
    put(&b, "<h2>GPUs</h2>\n<table id=\"gpus\"><thead><tr><th>slot</th><th>GPU</th><th>grading</th></tr></thead><tbody>\n");
    for (int k = 0; k < grading_slots(); k++) {
        put(&b, "<tr><td>%d</td><td>", k);
        put_html(&b, grading_gpu(k));
        put(&b, "</td><td>");
        put_html(&b, *grading_now(k) ? grading_now(k) : "idle");
        put(&b, "</td></tr>\n");
    }
    put(&b, "</tbody></table>\n");
    students_table(&b, db);
    store_unlock();
    put(&b, "</body></html>\n");
    return b.s;
}

char *status_json(sqlite3 *db)
{
    store_lock();
    json_t *j = json_pack("{s:I,s:I,s:I,s:[]}", "queued", count0(db, "SELECT count(*) FROM submissions WHERE state='queued'"),
                          "grading", count0(db, "SELECT count(*) FROM submissions WHERE state='grading'"),
                          "done", count0(db, "SELECT count(*) FROM submissions WHERE state='done'"), "gpus");
    for (int k = 0; k < grading_slots(); k++)
        json_array_append_new(json_object_get(j, "gpus"), json_pack("{s:s,s:s}", "gpu", grading_gpu(k), "grading", grading_now(k)));
    store_unlock();
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}
