/* records.c - line records between harness and driver. See records.h. */
#include "records.h"
#include "../../common/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int out_fd = -1;
static char line_buf[RECORD_MAX_LINE];
static size_t line_len;

void results_set_fd(int fd) { out_fd = fd; }

static int must_escape(unsigned char c) { return c <= ' ' || c == '=' || c == '%' || c >= 0x7f; }

int results_escape(const char *src, char *dst, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        if (must_escape(*p)) {
            if (o + 3 >= len)
                return (dst[o] = 0, 0);
            dst[o++] = '%';
            dst[o++] = hex[*p >> 4];
            dst[o++] = hex[*p & 15];
        } else {
            if (o + 1 >= len)
                return (dst[o] = 0, 0);
            dst[o++] = (char)*p;
        }
    }
    dst[o] = 0;
    return 1;
}

static void append(const char *s)
{
    const size_t room = sizeof line_buf - 2 - line_len; /* keep room for '\n' */
    size_t n = strlen(s);
    if (line_len + 2 > sizeof line_buf)
        return;
    if (n > room)
        n = room;
    memcpy(line_buf + line_len, s, n);
    line_len += n;
}

void results_begin(const char *type)
{
    line_len = 0;
    append(type);
}

void results_str(const char *key, const char *value)
{
    char esc[RECORD_MAX_LINE / 2];
    results_escape(value ? value : "", esc, sizeof esc); /* truncated if absurdly long */
    append(" ");
    append(key);
    append("=");
    append(esc);
}

void results_num(const char *key, double value)
{
    char s[64];
    snprintf(s, sizeof s, "%.9g", value);
    results_str(key, s);
}

void results_int(const char *key, long long value)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", value);
    results_str(key, s);
}

void results_emit(void)
{
    line_buf[line_len++] = '\n';
    if (out_fd < 0)
        return;
    size_t done = 0;
    while (done < line_len) {
        ssize_t w = write(out_fd, line_buf + done, line_len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fatal("cannot write grading results: %s", strerror(errno));
        done += (size_t)w;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decode [s, end) into a new string; NULL if an escape is malformed. */
static char *decode(const char *s, const char *end)
{
    char *out = xmalloc((size_t)(end - s) + 1), *o = out;
    while (s < end) {
        if (*s == '%') {
            if (end - s < 3 || hexval(s[1]) < 0 || hexval(s[2]) < 0) {
                free(out);
                return NULL;
            }
            *o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
            s += 3;
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
    return out;
}

int record_parse(const char *line, record *r, const char **why)
{
    memset(r, 0, sizeof *r);
    const char *p = line;
    const char *sp = strchr(p, ' ');
    const char *type_end = sp ? sp : p + strlen(p);
    if (type_end == p || (size_t)(type_end - p) >= sizeof r->type)
        return (*why = "missing or overlong record type", -1);
    for (const char *c = p; c < type_end; c++)
        if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
            return (*why = "record type is not a lowercase word", -1);
    memcpy(r->type, p, (size_t)(type_end - p));
    p = type_end;
    while (*p == ' ') {
        p++;
        const char *eq = strchr(p, '=');
        const char *field_end = strchr(p, ' ');
        if (!field_end)
            field_end = p + strlen(p);
        if (!eq || eq > field_end || eq == p) {
            record_free(r);
            return (*why = "field is not key=value", -1);
        }
        if (r->n >= RECORD_MAX_FIELDS) {
            record_free(r);
            return (*why = "too many fields", -1);
        }
        char *k = decode(p, eq), *v = decode(eq + 1, field_end);
        if (!k || !v) {
            free(k);
            free(v);
            record_free(r);
            return (*why = "bad %XX escape", -1);
        }
        r->key[r->n] = k;
        r->value[r->n] = v;
        r->n++;
        p = field_end;
    }
    if (*p != 0) {
        record_free(r);
        return (*why = "stray characters", -1);
    }
    return 0;
}

void record_free(record *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->key[i]);
        free(r->value[i]);
    }
    r->n = 0;
}

const char *record_get(const record *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0)
            return r->value[i];
    return NULL;
}

int record_get_num(const record *r, const char *key, double *out)
{
    const char *v = record_get(r, key);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (*end != 0 || errno == ERANGE)
        return -1;
    *out = d;
    return 0;
}

int cuda_error_is_environment(const char *name)
{
    static const char *const env[] = {
        "cudaErrorNoDevice", "cudaErrorInsufficientDriver", "cudaErrorInitializationError",
        "cudaErrorDevicesUnavailable", "cudaErrorSystemDriverMismatch",
        "cudaErrorCompatNotSupportedOnDevice", "cudaErrorNoKernelImageForDevice",
        "cudaErrorUnsupportedPtxVersion", "cudaErrorSystemNotReady",
    };
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        if (strcmp(name, env[i]) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Record files                                                                                */

void read_records(const char *path, record_list *l)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, alloc = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = 0;
        else if (l->malformed_line == 0) { /* a last line cut short: the process died mid-write */
            l->malformed_line = lineno;
            snprintf(l->malformed_why, sizeof l->malformed_why, "unterminated last line");
            break;
        }
        record r;
        const char *why = NULL;
        if (len >= RECORD_MAX_LINE || record_parse(line, &r, &why) != 0) {
            if (l->malformed_line == 0) {
                l->malformed_line = lineno;
                snprintf(l->malformed_why, sizeof l->malformed_why, "%s",
                         why ? why : "line too long");
            }
            continue;
        }
        if (l->n == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            l->rec = realloc(l->rec, (size_t)alloc * sizeof *l->rec);
            if (!l->rec)
                fatal("out of memory reading %s", path);
        }
        l->rec[l->n++] = r;
    }
    free(line);
    fclose(f);
}

void free_records(record_list *l)
{
    for (int i = 0; i < l->n; i++)
        record_free(&l->rec[i]);
    free(l->rec);
    memset(l, 0, sizeof *l);
}

const record *find_record(const record_list *l, const char *type, int from)
{
    for (int i = from; i < l->n; i++)
        if (strcmp(l->rec[i].type, type) == 0)
            return &l->rec[i];
    return NULL;
}
