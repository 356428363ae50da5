/* serve.c - TRUSTED: make serve. The course server: HTTP (GNU libmicrohttpd) on 127.0.0.1 by
 * default (ADDR= another, TLS_CERT= and TLS_KEY= TLS), its queue and results in COURSE/serve.db
 * (store.c), JSON through jansson, the gradings through grading.c's slots. A submission is
 * answered 202 only once its row is committed. Every request is logged (COURSE/serve.log).
 *
 *   serve-course COURSE PORT     (ADDR, TLS_CERT, TLS_KEY, DEADLINE, RATE, STUDENT_QUEUE,
 *                                 QUEUE_MAX, STUDENT_CONNECTIONS, EMU, GPUS, JOBS, BUILD from the
 *                                 environment) */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lab.h"
#include "../plan/lab_select.h"
#include "serve.h"

static FILE *logf;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void serve_log(const char *fmt, ...)
{
    char when[32];
    const time_t t = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    pthread_mutex_lock(&log_lock);
    fprintf(logf, "%s ", when);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf, fmt, ap);
    va_end(ap);
    fputc('\n', logf);
    fflush(logf);
    pthread_mutex_unlock(&log_lock);
}

/* A request in progress: its body, bounded, and who sent it. */
typedef struct req {
    char *body;
    size_t len;
    int too_big, busy, closing; /* closing: the answer closes the connection */
    long long student;
    char name[256];
} req;

/* The bytes of uploads held in memory at once, all connections together, and their cap. */
#define HELD_MAX ((size_t)256 << 20)
static size_t held;

static enum MHD_Result reply(struct MHD_Connection *c, req *r, const char *method, const char *url,
                             unsigned code, const char *type, const char *body, size_t len, int retry_after)
{
    struct MHD_Response *res = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(res, "Content-Type", type);
    MHD_add_response_header(res, "Cache-Control", "no-store");
    MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
    if (code == 401)
        MHD_add_response_header(res, "WWW-Authenticate", "Bearer");
    if (r && r->closing)
        MHD_add_response_header(res, "Connection", "close");
    if (retry_after > 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", retry_after);
        MHD_add_response_header(res, "Retry-After", v);
    }
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char ip[64] = "?";
    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)ci->client_addr)->sin_addr, ip, sizeof ip);
    char shown[128];
    size_t k = 0;
    for (const char *p = url; *p && k < sizeof shown - 1; p++)
        shown[k++] = (*p > 32 && *p < 127) ? *p : '?';
    shown[k] = 0;
    serve_log("%s %s %s %u %s %zu", ip, method, shown, code, r && r->student ? r->name : "-", r ? r->len : 0);
    const enum MHD_Result ok = MHD_queue_response(c, code, res);
    MHD_destroy_response(res);
    return ok;
}

static enum MHD_Result reply_json(struct MHD_Connection *c, req *r, const char *method, const char *url,
                                  unsigned code, json_t *j, int retry_after)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    const enum MHD_Result ok = reply(c, r, method, url, code, "application/json", text, strlen(text), retry_after);
    free(text);
    return ok;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, req *r, const char *method, const char *url,
                                   unsigned code, const char *msg, int retry_after)
{
    return reply_json(c, r, method, url, code, json_pack("{s:s}", "error", msg), retry_after);
}

/* The bearer token of the request (Authorization: Bearer T), or NULL. */
static const char *bearer(struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    return a && !strncmp(a, "Bearer ", 7) ? a + 7 : NULL;
}

static long long count(sqlite3 *db, const char *sql, long long arg)
{
    sqlite3_stmt *st;
    long long n = -1;
    sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (arg >= 0)
        sqlite3_bind_int64(st, 1, arg);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* RATE: a student's submissions stored in the last minute, counted in the store (so that a
 * restart forgets none). 0 when the student may submit one more now, else the seconds until the
 * oldest of them leaves the minute. Under store_lock, in the transaction that would store it. */
static int rate_wait(sqlite3 *db, long long student, int per_min, double now)
{
    sqlite3_stmt *st;
    int wait = 0;
    sqlite3_prepare_v2(db, "SELECT count(*), min(created) FROM submissions WHERE student=? AND created>?", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, student);
    sqlite3_bind_double(st, 2, now - 60);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) >= per_min)
        wait = (int)(60 - (now - sqlite3_column_double(st, 1))) + 1;
    sqlite3_finalize(st);
    return wait;
}

static enum MHD_Result submit(const serve_ctx *x, struct MHD_Connection *c, req *r, const char *url)
{
    const serve_opts *o = x->opts;
    const char *key = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "lab");
    const lab_info *lab = key ? find_lab(key) : NULL;
    if (!lab)
        return reply_error(c, r, "POST", url, 400, "no such lab: give LAB= a lab's number or name (01 to 09, coalescing ...)", 0);
    if (r->too_big)
        return reply_error(c, r, "POST", url, 413, "refused: the upload is over 6 MiB; an upload holds the lab's file (at most 1 MiB) and its helper files (at most 32, 4 MiB in all)", 0);
    char folder[64], rel[128], err[600];
    lab_folder(lab, folder, sizeof folder);
    lab_student_rel(lab, rel, sizeof rel);
    up_file files[UP_MAX_FILES];
    if (upload_parse((unsigned char *)r->body, r->len, folder, rel, files, err, sizeof err) < 0)
        return reply_error(c, r, "POST", url, 400, err, 0);
    const double now = now_s();
    store_lock();
    store_exec(x->db, "BEGIN IMMEDIATE");
    const char *refusal = NULL;
    unsigned code = 0;
    int retry = 30;
    const int wait = rate_wait(x->db, r->student, o->rate_per_min, now);
    if (wait)
        refusal = "too many submissions this minute: wait, then submit again", code = 429, retry = wait;
    else if (count(x->db, "SELECT count(*) FROM submissions WHERE state!='done'", -1) >= o->queue_max)
        refusal = "the queue is full: submit again later", code = 503;
    else if (count(x->db, "SELECT count(*) FROM submissions WHERE state!='done' AND student=?", r->student) >= o->student_queued)
        refusal = "you have submissions waiting to be graded already: wait for their reports, then submit again", code = 429;
    long long id = 0, position = 0;
    if (!refusal) {
        sqlite3_stmt *st;
        sqlite3_prepare_v2(x->db, "INSERT INTO submissions(student, lab, created, late, archive) VALUES(?,?,?,?,?)", -1, &st, NULL);
        sqlite3_bind_int64(st, 1, r->student);
        sqlite3_bind_text(st, 2, lab->number, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 3, now);
        sqlite3_bind_int(st, 4, o->deadline > 0 && now > o->deadline);
        sqlite3_bind_blob(st, 5, r->body, (int)r->len, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_DONE)
            id = sqlite3_last_insert_rowid(x->db);
        sqlite3_finalize(st);
        position = count(x->db, "SELECT count(*) FROM submissions WHERE state='queued' AND id<=?", id);
    }
    const int committed = id && store_exec(x->db, "COMMIT") == SQLITE_OK;
    if (!committed)
        store_exec(x->db, "ROLLBACK");
    else
        store_changed();
    store_unlock();
    if (refusal)
        return reply_error(c, r, "POST", url, code, refusal, retry);
    if (!committed)
        return reply_error(c, r, "POST", url, 503, "the server could not store the submission: submit again later", 30);
    grading_wake();
    return reply_json(c, r, "POST", url, 202, json_pack("{s:I,s:s,s:I,s:b}", "id", id, "lab", lab->number, "position", position,
                                                        "late", o->deadline > 0 && now > o->deadline), 0);
}

/* One submission's row as JSON (the report too when REPORT). */
static json_t *row_json(sqlite3_stmt *st, int report)
{
    json_t *j = json_pack("{s:I,s:s,s:s,s:f,s:b,s:i}", "id", sqlite3_column_int64(st, 0),
                          "lab", (const char *)sqlite3_column_text(st, 1), "state", (const char *)sqlite3_column_text(st, 2),
                          "created", sqlite3_column_double(st, 3), "late", sqlite3_column_int(st, 4), "attempts", sqlite3_column_int(st, 5));
    static const char *names[] = {"gpu", "exit_code", "score", "max", "correct_passed", "correct_checks", "speed_graded", "started", "finished"};
    for (int k = 0; k < 9; k++) {
        const int col = 6 + k, t = sqlite3_column_type(st, col);
        if (t == SQLITE_TEXT)
            json_object_set_new(j, names[k], json_string((const char *)sqlite3_column_text(st, col)));
        else if (t == SQLITE_INTEGER)
            json_object_set_new(j, names[k], json_integer(sqlite3_column_int64(st, col)));
        else if (t == SQLITE_FLOAT)
            json_object_set_new(j, names[k], json_real(sqlite3_column_double(st, col)));
    }
    if (report && sqlite3_column_type(st, 15) != SQLITE_NULL)
        json_object_set_new(j, "report", json_stringn_nocheck((const char *)sqlite3_column_blob(st, 15), (size_t)sqlite3_column_bytes(st, 15)));
    return j;
}

#define ROW_COLS "id, lab, state, created, late, attempts, gpu, exit_code, score, max, correct_passed, correct_checks, speed_graded, started, finished, report"

/* A long poll: while submission ID's state and place read SEEN ("queued:3", "grading:0"), up to
 * WAIT seconds (at most 25), wait for the store's next change of a state (store_changed) and
 * look again, so that make submit hears of a change as it happens, not at its next poll. (At
 * least once a second too, whatever the store says.) */
static void wait_change(sqlite3 *db, long long id, const char *seen, double wait)
{
    const double end = now_s() + (wait > 25 ? 25 : wait);
    store_lock();
    for (;;) {
        char now[64] = "";
        sqlite3_stmt *st;
        sqlite3_prepare_v2(db, "SELECT state, CASE WHEN state='queued' THEN (SELECT count(*) FROM submissions"
                               " WHERE state='queued' AND id<=?1) ELSE 0 END FROM submissions WHERE id=?1", -1, &st, NULL);
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW)
            snprintf(now, sizeof now, "%s:%d", (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1));
        sqlite3_finalize(st);
        const double t = now_s();
        if (strcmp(now, seen) || t >= end)
            break;
        store_wait_change(t + 1 < end ? t + 1 : end); /* the lock let go while it waits */
    }
    store_unlock();
}

/* GET /api/submissions/ID/logs: the files of submission ID's grading that its report names (the
 * student's own only), as {"name": "text", ...}. */
static enum MHD_Result logs(const serve_ctx *x, struct MHD_Connection *c, req *r, const char *url, long long id)
{
    sqlite3_stmt *st;
    store_lock();
    const int owned = count(x->db, "SELECT student FROM submissions WHERE id=? AND state='done'", id) == r->student;
    json_t *out = json_object();
    sqlite3_prepare_v2(x->db, "SELECT name, body FROM logs WHERE submission=? ORDER BY name", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, id);
    while (owned && sqlite3_step(st) == SQLITE_ROW)
        json_object_set_new(out, (const char *)sqlite3_column_text(st, 0),
                            json_stringn_nocheck((const char *)sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1)));
    sqlite3_finalize(st);
    store_unlock();
    if (!owned) {
        json_decref(out);
        return reply_error(c, r, "GET", url, 404, "no such graded submission of yours", 0);
    }
    return reply_json(c, r, "GET", url, 200, out, 0);
}

/* GET /api/submissions (the student's own, newest first) or /api/submissions/ID (theirs only;
 * ?wait=S&seen=STATE:PLACE waits for a change first). */
static enum MHD_Result mine(const serve_ctx *x, struct MHD_Connection *c, req *r, const char *url)
{
    const char *tail = url + strlen("/api/submissions");
    long long id = -1;
    if (*tail == '/') {
        char *end;
        id = strtoll(tail + 1, &end, 10);
        if (id > 0 && !strcmp(end, "/logs"))
            return logs(x, c, r, url, id);
        if (*end || id <= 0)
            return reply_error(c, r, "GET", url, 404, "no such submission of yours", 0);
    } else if (*tail)
        return reply_error(c, r, "GET", url, 404, "no such page", 0);
    const char *wait = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
    const char *seen = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seen");
    if (id > 0 && wait && seen && strlen(seen) < 40)
        wait_change(x->db, id, seen, atof(wait));
    sqlite3_stmt *st;
    json_t *out = id > 0 ? NULL : json_array();
    store_lock();
    sqlite3_prepare_v2(x->db, id > 0 ? "SELECT " ROW_COLS " FROM submissions WHERE student=?1 AND id=?2"
                                      : "SELECT " ROW_COLS " FROM submissions WHERE student=?1 ORDER BY id DESC LIMIT 500",
                       -1, &st, NULL);
    sqlite3_bind_int64(st, 1, r->student);
    if (id > 0)
        sqlite3_bind_int64(st, 2, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        json_t *j = row_json(st, id > 0);
        if (id < 0) {
            json_array_append_new(out, j);
            continue;
        }
        out = j;
        if (!strcmp((const char *)sqlite3_column_text(st, 2), "done")) { /* where it was graded: the folders its report names */
            char dir[4200];
            snprintf(dir, sizeof dir, "%s/work/%lld.%d", x->opts->course, id, sqlite3_column_int(st, 5));
            json_object_set_new(j, "graded_in", json_string(dir));
        }
        if (!strcmp((const char *)sqlite3_column_text(st, 2), "queued"))
            json_object_set_new(j, "position", json_integer(count(x->db, "SELECT count(*) FROM submissions WHERE state='queued' AND id<=?", id)));
    }
    sqlite3_finalize(st);
    store_unlock();
    if (!out)
        return reply_error(c, r, "GET", url, 404, "no such submission of yours", 0);
    return reply_json(c, r, "GET", url, 200, out, 0);
}

static int is_instructor(const serve_opts *o, struct MHD_Connection *c)
{
    const char *t = bearer(c);
    if (!t)
        t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    if (!t || strlen(t) > 200)
        return 0;
    char hex[65];
    token_hash(t, hex);
    unsigned char d = 0;
    for (int i = 0; i < 64; i++)
        d |= (unsigned char)(hex[i] ^ o->instructor_hash[i]);
    return d == 0;
}

/* The connections open at once, per student (STUDENT_CONNECTIONS): a connection is its last
 * request's student's (libmicrohttpd's socket context holds whose) until it closes. So that one
 * student's connections held open (long polls, idle keep-alives) cannot take the server's 512
 * from the others. At most one entry per connection: CONN_MAX entries are enough. */
#define CONN_MAX 512
typedef struct conn_owner { long long student; } conn_owner;
static struct { long long student; int n; } conns[CONN_MAX];
static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;

static int *conn_count(long long student) /* under conn_lock: its entry's count (a free one if none) */
{
    int free_one = -1;
    for (int k = 0; k < CONN_MAX; k++) {
        if (conns[k].n > 0 && conns[k].student == student)
            return &conns[k].n;
        if (conns[k].n == 0 && free_one < 0)
            free_one = k;
    }
    if (free_one < 0)
        return NULL;
    conns[free_one].student = student;
    return &conns[free_one].n;
}

/* 1 when connection C may carry STUDENT's request (it is counted as theirs), 0 when they have CAP
 * open already. */
static int conn_claim(struct MHD_Connection *c, long long student, int cap)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_owner *own = ci ? ci->socket_context : NULL;
    if (!own || own->student == student)
        return 1;
    pthread_mutex_lock(&conn_lock);
    int *n = conn_count(student), ok = n && *n < cap;
    if (ok) {
        int *was = own->student ? conn_count(own->student) : NULL;
        if (was && *was > 0)
            --*was;
        ++*n;
        own->student = student;
    }
    pthread_mutex_unlock(&conn_lock);
    return ok;
}

static void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    (void)cls, (void)c;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = calloc(1, sizeof(conn_owner));
        return;
    }
    conn_owner *own = *socket_context;
    if (own && own->student) {
        pthread_mutex_lock(&conn_lock);
        int *n = conn_count(own->student);
        if (n && *n > 0)
            --*n;
        pthread_mutex_unlock(&conn_lock);
    }
    free(own);
    *socket_context = NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)version;
    const serve_ctx *x = cls; /* main's: the store and the settings */
    req *r = *con_cls;
    if (!r) { /* the headers: who it is, before any body is read */
        r = *con_cls = calloc(1, sizeof *r);
        if (!strncmp(url, "/api/", 5) && strcmp(url, "/api/status")) { /* a student's (the status: the instructor's) */
            r->student = store_student(x->db, bearer(c), r->name, sizeof r->name);
            if (!r->student)
                return reply(c, r, method, url, 401, "application/json", "{\"error\":\"unauthorized\"}", 24, 0);
            if (!conn_claim(c, r->student, x->opts->student_conns)) {
                char msg[300];
                snprintf(msg, sizeof msg, "you have %d connections to the server open at once, the most it takes from one student: "
                         "close some (make submit holds one), then try again", x->opts->student_conns);
                r->closing = 1;
                return reply_error(c, r, method, url, 429, msg, 5);
            }
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoll(cl, NULL, 10) > UP_MAX_BYTES)
            return reply_error(c, r, method, url, 413, "refused: the upload is over 6 MiB; an upload holds the lab's file (at most 1 MiB) and its helper files (at most 32, 4 MiB in all)", 0);
        return MHD_YES;
    }
    if (*size) { /* the body, bounded: each upload, and all of them held at once */
        if (r->len + *size > UP_MAX_BYTES)
            r->too_big = 1;
        else if (__atomic_add_fetch(&held, *size, __ATOMIC_SEQ_CST) > HELD_MAX) {
            __atomic_sub_fetch(&held, *size, __ATOMIC_SEQ_CST);
            r->busy = 1;
        } else {
            r->body = realloc(r->body, r->len + *size);
            memcpy(r->body + r->len, data, *size);
            r->len += *size;
        }
        *size = 0;
        return MHD_YES;
    }
    if (r->busy)
        return reply_error(c, r, method, url, 503, "the server holds too many uploads at once: submit again in a minute", 30);
    if (!strcmp(method, "POST") && !strcmp(url, "/api/submit"))
        return submit(x, c, r, url);
    if (!strcmp(method, "GET") && !strncmp(url, "/api/submissions", 16))
        return mine(x, c, r, url);
    if (!strcmp(method, "GET") && (!strcmp(url, "/status") || !strcmp(url, "/api/status"))) {
        if (!is_instructor(x->opts, c))
            return reply(c, r, method, "/status", 401, "text/plain", "unauthorized\n", 13, 0);
        char *text = url[1] == 's' ? status_html(x->db) : status_json(x->db);
        const enum MHD_Result ok = reply(c, r, method, url, 200, url[1] == 's' ? "text/html; charset=utf-8" : "application/json",
                                         text, strlen(text), 0);
        free(text);
        return ok;
    }
    return reply_error(c, r, method, url, 404, "no such page", 0);
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls, (void)c, (void)t;
    req *r = *con_cls;
    if (r) {
        __atomic_sub_fetch(&held, r->len, __ATOMIC_SEQ_CST);
        free(r->body), free(r);
    }
    *con_cls = NULL;
}


static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = calloc(1, 1 << 20);
    fread(s, 1, (1 << 20) - 1, f);
    fclose(f);
    return s;
}

/* The course's seed: SEED= when given, else the one kept in COURSE/seed, else a new one kept
 * there. Every grading of the course draws its hidden cases from it (as make grade-batch does),
 * so that two students' reports, and make grade SEED=<it> on the same files, are alike. */
static void course_seed(serve_opts *o)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/seed", o->course);
    const char *given = getenv("SEED");
    char *kept = slurp(path);
    if (given && *given)
        snprintf(o->seed, sizeof o->seed, "%s", given);
    else if (kept && !strncmp(kept, "0x", 2))
        snprintf(o->seed, sizeof o->seed, "%.*s", (int)strcspn(kept, "\n"), kept);
    else {
        unsigned long long r;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = (unsigned long long)time(NULL) * 2654435761ULL;
        snprintf(o->seed, sizeof o->seed, "0x%016llx", r);
    }
    for (const char *p = o->seed + 2; *p; p++)
        if (strncmp(o->seed, "0x", 2) || !strchr("0123456789abcdefABCDEF", *p)) {
            fprintf(stderr, "make serve: SEED=%s: give it as make grade takes it (0x and hex digits)\n", o->seed);
            exit(2);
        }
    if (!kept || strncmp(kept, o->seed, strlen(o->seed))) {
        FILE *f = fopen(path, "w");
        if (f)
            fprintf(f, "%s\n", o->seed), fclose(f);
    }
    free(kept);
}

static void settings(serve_opts *o, int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: serve-course COURSE PORT\n");
        exit(2);
    }
    snprintf(o->course, sizeof o->course, "%s", argv[1]);
    const char *b = getenv("BUILD");
    snprintf(o->build, sizeof o->build, "%s", b && *b ? b : "build");
    const char *d = getenv("DEADLINE");
    if (d && *d) {
        struct tm tm = {0};
        const char *end = strptime(d, "%Y-%m-%dT%H:%M", &tm);
        if (end && *end == ':')
            end = strptime(end, ":%S", &tm);
        if (!end || (*end && strcmp(end, "Z"))) {
            fprintf(stderr, "make serve: DEADLINE=%s: give it as 2026-12-01T23:59Z (UTC)\n", d);
            exit(2);
        }
        o->deadline = (double)timegm(&tm);
    }
    const char *v;
    o->rate_per_min = (v = getenv("RATE")) && atoi(v) > 0 ? atoi(v) : 6;
    o->student_queued = (v = getenv("STUDENT_QUEUE")) && atoi(v) > 0 ? atoi(v) : 3;
    o->queue_max = (v = getenv("QUEUE_MAX")) && atoi(v) > 0 ? atoi(v) : 500;
    o->student_conns = (v = getenv("STUDENT_CONNECTIONS")) && atoi(v) > 0 ? atoi(v) : 8;
    char path[4200];
    snprintf(path, sizeof path, "%s/instructor.token", o->course);
    char *tok = slurp(path);
    if (!tok) {
        fprintf(stderr, "make serve: %s is missing: make roster ROSTER=students.csv COURSE=%s first\n", path, o->course);
        exit(2);
    }
    tok[strcspn(tok, "\n")] = 0;
    token_hash(tok, o->instructor_hash);
    free(tok);
    course_seed(o);
}

int main(int argc, char **argv)
{
    umask(077); /* the store, the log and the work folders: the instructor's alone */
    /* The settings and the context passed down: main's (static: the slots' threads outlive a
     * return from main that ends the program), the other files given the settings read-only. */
    static serve_opts opts;
    serve_opts *o = &opts;
    settings(o, argc, argv);
    static serve_ctx ctx = {.db = NULL, .opts = &opts}; /* libmicrohttpd's cls, the grading slots' */
    char err[512], path[4200];
    snprintf(path, sizeof path, "%s/serve.log", o->course);
    if (!(logf = fopen(path, "a")) || !(ctx.db = store_open(o->course, err, sizeof err))) {
        fprintf(stderr, "make serve: %s\n", logf ? err : "cannot write the request log");
        return 2;
    }
    snprintf(path, sizeof path, "%s/work", o->course);
    mkdir(path, 0700);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    const char *a = getenv("ADDR");
    if (inet_pton(AF_INET, a && *a ? a : "127.0.0.1", &addr.sin_addr) != 1) {
        fprintf(stderr, "make serve: ADDR=%s is not an IPv4 address (0.0.0.0: every interface)\n", a);
        return 2;
    }
    const char *cert = getenv("TLS_CERT"), *key = getenv("TLS_KEY");
    char *cert_pem = cert && *cert ? slurp(cert) : NULL, *key_pem = key && *key ? slurp(key) : NULL;
    if ((cert && *cert && !cert_pem) || (key && *key && !key_pem) || (!cert_pem != !key_pem)) {
        fprintf(stderr, "make serve: TLS needs both TLS_CERT= and TLS_KEY= (PEM files you can read)\n");
        return 2;
    }
    const int slots = grading_start(&ctx);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | (cert_pem ? MHD_USE_TLS : 0);
    struct MHD_Daemon *dmn = cert_pem
        ? MHD_start_daemon(flags, 0, NULL, NULL, handle, &ctx, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
                           MHD_OPTION_CONNECTION_LIMIT, 512, MHD_OPTION_CONNECTION_TIMEOUT, 60,
                           MHD_OPTION_HTTPS_MEM_CERT, cert_pem, MHD_OPTION_HTTPS_MEM_KEY, key_pem, MHD_OPTION_END)
        : MHD_start_daemon(flags, 0, NULL, NULL, handle, &ctx, MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
                           MHD_OPTION_CONNECTION_LIMIT, 512, MHD_OPTION_CONNECTION_TIMEOUT, 60, MHD_OPTION_END);
    if (!dmn || slots <= 0) {
        fprintf(stderr, "make serve: cannot listen on %s:%s (in use, or not an address of this host)\n", a && *a ? a : "127.0.0.1", argv[2]);
        return 2;
    }
    printf("Serving %s on %s://%s:%s with %d grading slot%s (%s%s); the status page: /status?token=<%s/instructor.token>. Ctrl-C stops.\n",
           o->course, cert_pem ? "https" : "http", a && *a ? a : "127.0.0.1", argv[2], slots, slots == 1 ? "" : "s",
           grading_gpu(0), slots > 1 ? ", ..." : "", o->course);
    fflush(stdout);
    serve_log("serve: started, %d grading slot%s", slots, slots == 1 ? "" : "s");
    int sig;
    sigwait(&sigs, &sig);
    printf("Stopping (%s): gradings under way are graded again at the next start.\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    MHD_stop_daemon(dmn);
    grading_stop();
    serve_log("serve: stopped");
    sqlite3_close(ctx.db);
    return 0;
}
