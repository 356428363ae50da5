/* records.h - the harness -> driver channel: one record per line, `type key=value ...`.
 *
 * The harness (which holds no student code: that runs in the sandboxed workers it starts)
 * only reports raw facts: sizes, how many elements were wrong, timing samples. The driver
 * parses them, rejects anything malformed, and decides every verdict itself. Values are percent-escaped (space, '=', '%', control
 * characters and bytes >= 0x80 become %XX), so any string survives one line. Where student
 * code shares the harness's process (the fallback, grader/harness/worker_trusted.h), it can write any
 * record: the driver takes the run's labels (isolation, sandbox, device) only from the
 * harness's greeting, two records sent before any student code is loaded (decide/verdict.h). */
#ifndef GRADER_WIRE_RECORDS_H
#define GRADER_WIRE_RECORDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECORD_MAX_FIELDS 48
#define RECORD_MAX_LINE 8192

typedef struct record {
    char type[32];                       /* "begin", "device", "correct", "sample", ... */
    int n;                               /* fields in use */
    char *key[RECORD_MAX_FIELDS];        /* decoded keys, owned by the record */
    char *value[RECORD_MAX_FIELDS];      /* decoded values, owned by the record */
} record;

/* --- writing (harness side) --- */

/* Records go to this file descriptor from now on (one write() per record, so a record is
 * either whole or absent when the process dies). */
void results_set_fd(int fd);
/* Build a record: begin, add fields, then emit. Not reentrant. */
void results_begin(const char *type);
void results_str(const char *key, const char *value);
void results_num(const char *key, double value);
void results_int(const char *key, long long value);
void results_emit(void);

/* 1 when a CUDA error of this name says the machine cannot run CUDA at all (no device, a
 * driver too old, a kernel image the GPU cannot run) rather than that a program misbehaved.
 * Reported by a process that holds student code, it is a claim to corroborate, never a fact:
 * the harness then checks that the reference's process, started the same way, runs here
 * (the record's `reference_ran`). */
int cuda_error_is_environment(const char *name);

/* Percent-escape src into dst (dst gets at most len-1 chars); returns 0 if it did not fit. */
int results_escape(const char *src, char *dst, size_t len);

/* --- reading (driver side) --- */

/* Parse one line (without its newline). Returns 0 on success, -1 on a malformed line with
 * *why set to a static description. The record must be freed with record_free. */
int record_parse(const char *line, record *r, const char **why);
void record_free(record *r);
/* Value of `key`, or NULL. */
const char *record_get(const record *r, const char *key);
/* Numeric value of `key` into *out; 0 on success, -1 if absent or not a number. */
int record_get_num(const record *r, const char *key, double *out);

/* All records of a results file. */
typedef struct record_list {
    record *rec;       /* parsed records in file order */
    int n;             /* how many */
    int malformed_line;/* 1-based line number of the first malformed line, 0 if none */
    char malformed_why[128]; /* what was wrong with it */
} record_list;

/* Read and parse `path` (a missing file reads as an empty list). */
void read_records(const char *path, record_list *l);
void free_records(record_list *l);
/* The first record of `type` at or after index `from`, or NULL. */
const record *find_record(const record_list *l, const char *type, int from);

#ifdef __cplusplus
}
#endif
#endif
