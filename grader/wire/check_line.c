/* check_line.c - the driver's command to a harness, written and read here alone. See
 * check_line.h. */
#include "check_line.h"
#include "records.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_line_format(const check_cmd *c, char *buf, size_t len)
{
    char records[sizeof c->records * 3], log[sizeof c->log * 3];
    if (len > 0)
        buf[0] = 0;
    if (c->check < 0 || !isfinite(c->threshold) || !isfinite(c->cap_s) || !isfinite(c->timeout_s) ||
        !c->records[0] || !c->log[0] || memchr(c->records, 0, sizeof c->records) == NULL ||
        memchr(c->log, 0, sizeof c->log) == NULL ||
        !results_escape(c->records, records, sizeof records) || !results_escape(c->log, log, sizeof log))
        return -1;
    const int n = snprintf(buf, len, "check index=%d seed=0x%llx threshold=%.17g cap_s=%.17g "
                           "timeout_s=%.17g records=%s log=%s\n", c->check, c->seed, c->threshold,
                           c->cap_s, c->timeout_s, records, log);
    if (n < 0 || (size_t)n >= len) {
        if (len > 0)
            buf[0] = 0;
        return -1;
    }
    return 0;
}

/* A whole number, a double or a path of the record r under key, into *out; -1 if absent or not
 * wholly one. (Whether it was written as check_line_format writes it is checked after.) */
static int get_ull(const record *r, const char *key, unsigned long long *out)
{
    const char *v = record_get(r, key);
    char *end;
    if (!v || !*v || *v == '-' || *v == '+')
        return -1;
    errno = 0;
    *out = strtoull(v, &end, 0);
    return *end || errno ? -1 : 0;
}

static int get_path(const record *r, const char *key, char *out, size_t len)
{
    const char *v = record_get(r, key);
    if (!v || !*v || strlen(v) >= len)
        return -1;
    memcpy(out, v, strlen(v) + 1);
    return 0;
}

/* LINE (its ending newline, if any, left out) copied into TEXT (room for MAX bytes and the
 * ending 0) and read as a record into r, whose fields point into TEXT: 0, or -1 with *why. */
static int line_record(const char *line, char *text, size_t max, record *r, const char **why)
{
    const size_t n = strlen(line);
    if (n > max)
        return (*why = "the line is too long", -1);
    memcpy(text, line, n + 1);
    if (n > 0 && text[n - 1] == '\n')
        text[n - 1] = 0;
    return record_parse(text, r, why);
}

int check_line_parse(const char *line, check_cmd *c, const char **why)
{
    static const char *const keys[] = {"index", "seed", "threshold", "cap_s", "timeout_s",
                                       "records", "log"};
    memset(c, 0, sizeof *c);
    char text[CHECK_LINE_MAX + 2];
    record r;
    if (line_record(line, text, CHECK_LINE_MAX, &r, why) != 0)
        return -1;
    unsigned long long index = 0;
    int bad = strcmp(r.type, "check") != 0 || r.n != (int)(sizeof keys / sizeof keys[0]);
    for (int i = 0; !bad && i < r.n; i++)
        bad = strcmp(r.key[i], keys[i]) != 0;
    if (bad) {
        record_free(&r);
        return (*why = "not a check command (check index= seed= threshold= cap_s= timeout_s= "
                       "records= log=)", -1);
    }
    if (get_ull(&r, "index", &index) || index > 1000000 || get_ull(&r, "seed", &c->seed) ||
        record_get_num(&r, "threshold", &c->threshold) || record_get_num(&r, "cap_s", &c->cap_s) ||
        record_get_num(&r, "timeout_s", &c->timeout_s) ||
        get_path(&r, "records", c->records, sizeof c->records) ||
        get_path(&r, "log", c->log, sizeof c->log)) {
        record_free(&r);
        return (*why = "a value is missing, too long or not a number", -1);
    }
    record_free(&r);
    c->check = (int)index;
    /* Only what the encoder writes is read: the same values must give back the same line. */
    char again[CHECK_LINE_MAX + 2];
    if (check_line_format(c, again, sizeof again) != 0 || strncmp(again, text, strlen(text)) != 0 ||
        strcmp(again + strlen(text), "\n") != 0) {
        memset(c, 0, sizeof *c);
        return (*why = "not written as the driver writes it (a value out of range, an escape "
                       "where none belongs, a number spelled another way)", -1);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* A lab's command                                                                             */

#define LAB_FIELDS 5

/* c's fields in the line's order, with their sizes */
static void lab_fields(lab_cmd *c, char **v, size_t *len)
{
    char *const f[LAB_FIELDS] = {c->name, c->problem, c->student, c->reference, c->log};
    const size_t n[LAB_FIELDS] = {sizeof c->name, sizeof c->problem, sizeof c->student,
                                  sizeof c->reference, sizeof c->log};
    for (int i = 0; i < LAB_FIELDS; i++)
        v[i] = f[i], len[i] = n[i];
}

int lab_line_format(const lab_cmd *c, char *buf, size_t len)
{
    char *v[LAB_FIELDS];
    size_t n[LAB_FIELDS];
    lab_fields((lab_cmd *)c, v, n);
    static char esc[LAB_FIELDS][1024 * 3];
    if (len > 0)
        buf[0] = 0;
    for (int i = 0; i < LAB_FIELDS; i++)
        if (!v[i][0] || memchr(v[i], 0, n[i]) == NULL ||
            !results_escape(v[i], esc[i], sizeof esc[i]))
            return -1;
    const int k = snprintf(buf, len, "lab name=%s problem=%s student=%s reference=%s log=%s\n",
                           esc[0], esc[1], esc[2], esc[3], esc[4]);
    if (k < 0 || (size_t)k >= len) {
        if (len > 0)
            buf[0] = 0;
        return -1;
    }
    return 0;
}

int lab_line_parse(const char *line, lab_cmd *c, const char **why)
{
    static const char *const keys[LAB_FIELDS] = {"name", "problem", "student", "reference", "log"};
    memset(c, 0, sizeof *c);
    static char text[LAB_LINE_MAX + 2], again[LAB_LINE_MAX + 2];
    record r;
    if (line_record(line, text, LAB_LINE_MAX, &r, why) != 0)
        return -1;
    int bad = strcmp(r.type, "lab") != 0 || r.n != LAB_FIELDS;
    char *v[LAB_FIELDS];
    size_t len[LAB_FIELDS];
    lab_fields(c, v, len);
    for (int i = 0; !bad && i < r.n; i++)
        bad = strcmp(r.key[i], keys[i]) != 0 || get_path(&r, keys[i], v[i], len[i]) != 0;
    record_free(&r);
    if (bad) {
        memset(c, 0, sizeof *c);
        return (*why = "not a lab command (lab name= problem= student= reference= log=), or a "
                       "value missing or too long", -1);
    }
    /* Only what the encoder writes is read: the same values must give back the same line. */
    if (lab_line_format(c, again, sizeof again) != 0 || strncmp(again, text, strlen(text)) != 0 ||
        strcmp(again + strlen(text), "\n") != 0) {
        memset(c, 0, sizeof *c);
        return (*why = "not written as the driver writes it (an escape where none belongs)", -1);
    }
    return 0;
}
