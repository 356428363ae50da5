/* serve.h - TRUSTED: the course server's pieces (grader/serve/README.md): the store (SQLite, the
 * queue and results), the upload's checks (a tar read strictly, written without following a
 * link), the grading slots, the HTTP side. Everything a student sends is data: bounded, checked
 * before a byte of it is written, never reaching a shell or make. */
#ifndef SERVE_H
#define SERVE_H

#include <sqlite3.h>

#include "upload.h"

/* The store: COURSE/serve.db (WAL). One connection, opened by each program's main and passed
 * down; every use under store_lock(). */
sqlite3 *store_open(const char *course, char *err, size_t errlen); /* the connection, or NULL (why into ERR) */
void store_lock(void);
void store_unlock(void);
void store_changed(void);          /* under store_lock: a submission's state or place changed */
void store_wait_change(double until); /* under store_lock: until the next store_changed, or UNTIL (now_s's clock) */
int store_exec(sqlite3 *db, const char *sql); /* SQLITE_OK or the error (printed) */
/* The student the token names (not revoked), or 0; the name into NAME. */
long long store_student(sqlite3 *db, const char *token, char *name, size_t namelen);
void token_hash(const char *token, char hex[65]);

/* Settings of the running server (serve.c's main reads them from its command line and
 * environment; the other files are given them read-only). */
typedef struct serve_opts {
    char course[4096];
    char build[4096];
    double deadline;  /* seconds since the epoch; 0: none */
    int rate_per_min; /* a student's submissions a minute */
    int student_queued; /* a student's submissions waiting at once */
    int queue_max;    /* submissions waiting in all */
    int student_conns; /* a student's connections open at once */
    char instructor_hash[65];
    char seed[40];    /* the course's hidden-case seed (COURSE/seed), as make grade's SEED= */
} serve_opts;

/* What the server's requests and gradings work with, made in serve.c's main and passed down
 * (libmicrohttpd's cls, each grading slot's thread): the store's connection and the settings. */
typedef struct serve_ctx {
    sqlite3 *db;
    const serve_opts *opts;
} serve_ctx;

/* The grading slots: one per GPU (CUDA_VISIBLE_DEVICES), or JOBS under the emulator. */
int grading_start(const serve_ctx *ctx); /* requeues cut-off gradings, starts the slots (CTX kept by them: lives until grading_stop); slots or -1 */
void grading_stop(void); /* ends the gradings under way (they are queued again at the next start) */
int grading_slots(void);
const char *grading_gpu(int slot);
const char *grading_now(int slot); /* "id 12, lab 01, 3 s" or "" */

void grading_wake(void); /* a submission was queued */

/* The instructor's status page (status.c): malloc'd HTML, and the same as JSON. */
char *status_html(sqlite3 *db);
char *status_json(sqlite3 *db);

void serve_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now_s(void);

#endif
