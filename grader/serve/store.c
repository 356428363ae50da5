/* store.c - TRUSTED: the course's store, COURSE/serve.db (SQLite, WAL, synchronous FULL: a
 * commit is on disk before anyone is told of it). Students (a name, the SHA-256 of their token,
 * revoked or not), submissions (queued -> grading -> done, the upload's bytes, the result) and
 * gradings (one row per grading completed, written in the transaction that marks it done). One
 * connection, used under one lock. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "../plan/started.h"
#include "serve.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void store_lock(void) { pthread_mutex_lock(&lock); }
void store_unlock(void) { pthread_mutex_unlock(&lock); }

/* The store's changes of a submission's state or place in the queue, counted, for the long polls
 * (serve.c's wait_change) to wait on rather than look again and again. Both under store_lock. */
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static unsigned long long changes;
void store_changed(void)
{
    changes++;
    pthread_cond_broadcast(&changed);
}
void store_wait_change(double until)
{
    const unsigned long long was = changes;
    const struct timespec t = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
    while (changes == was && now_s() < until)
        if (pthread_cond_timedwait(&changed, &lock, &t) == ETIMEDOUT)
            break;
}

double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

int store_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    const int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "serve: the store: %s (%s)\n", msg ? msg : sqlite3_errstr(rc), sql);
    sqlite3_free(msg);
    return rc;
}

static const char schema[] =
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
    "CREATE TABLE IF NOT EXISTS students(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,"
    "  token_hash TEXT UNIQUE NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS submissions(id INTEGER PRIMARY KEY,"
    "  student INTEGER NOT NULL REFERENCES students(id), lab TEXT NOT NULL, created REAL NOT NULL,"
    "  late INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT 'queued', attempts INTEGER NOT NULL DEFAULT 0,"
    "  archive BLOB NOT NULL, gpu TEXT, exit_code INTEGER, score REAL, max REAL, correct_passed INTEGER,"
    "  correct_checks INTEGER, speed_graded INTEGER, report BLOB, started REAL, finished REAL,"
    "  pgid INTEGER, pstart TEXT, results TEXT);"
    "CREATE INDEX IF NOT EXISTS sub_state ON submissions(state, id);"
    "CREATE INDEX IF NOT EXISTS sub_student ON submissions(student, id);"
    "CREATE TABLE IF NOT EXISTS gradings(id INTEGER PRIMARY KEY, submission INTEGER NOT NULL,"
    "  attempt INTEGER NOT NULL, finished REAL NOT NULL);"
    "CREATE TABLE IF NOT EXISTS logs(submission INTEGER NOT NULL, name TEXT NOT NULL, body BLOB NOT NULL,"
    "  PRIMARY KEY(submission, name));";

sqlite3 *store_open(const char *course, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/serve.db", course);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    if (store_exec(db, schema) != SQLITE_OK) {
        snprintf(err, errlen, "cannot set up %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

void token_hash(const char *token, char hex[65])
{
    started_sha256_hex(token, strlen(token), hex);
}

/* Equal without a time that depends on where they differ. */
static int same(const char *a, const char *b, size_t n)
{
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

long long store_student(sqlite3 *db, const char *token, char *name, size_t namelen)
{
    if (!token || strlen(token) < 16 || strlen(token) > 200)
        return 0;
    char hex[65];
    token_hash(token, hex);
    long long id = 0;
    sqlite3_stmt *st;
    store_lock();
    if (sqlite3_prepare_v2(db, "SELECT id, name, token_hash FROM students WHERE token_hash=? AND revoked=0",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, hex, 64, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) {
            const char *h = (const char *)sqlite3_column_text(st, 2);
            if (h && strlen(h) == 64 && same(h, hex, 64)) {
                id = sqlite3_column_int64(st, 0);
                snprintf(name, namelen, "%s", (const char *)sqlite3_column_text(st, 1));
            }
        }
        sqlite3_finalize(st);
    }
    store_unlock();
    return id;
}
