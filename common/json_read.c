/* json_read.c - a strict recursive-descent JSON reader. See json_read.h. */
#include "json_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p, *end, *start; /* cursor, end of input, start (for line/column) */
    char *err;                   /* where the message goes */
    int errlen;
    int failed;                  /* set once; the first error wins */
} parser;

__attribute__((format(printf, 2, 3))) static void fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    int line = 1, col = 1;
    for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
        if (*q == '\n')
            line++, col = 1;
        else
            col++;
    }
    int k = snprintf(ps->err, ps->errlen, "line %d, column %d: ", line, col);
    if (k < 0 || k >= ps->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + k, ps->errlen - k, fmt, ap);
    va_end(ap);
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static int hex4(parser *ps, unsigned *out)
{
    if (ps->end - ps->p < 4)
        return fail(ps, "a \\u escape needs four hex digits"), 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return fail(ps, "`%c` is not a hex digit in a \\u escape", c), 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) { dst[0] = (char)cp; return 1; }
    if (cp < 0x800) { dst[0] = (char)(0xC0 | cp >> 6); dst[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | cp >> 12); dst[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    dst[0] = (char)(0xF0 | cp >> 18); dst[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    dst[2] = (char)(0x80 | (cp >> 6 & 0x3F)); dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at the cursor (which is on the opening quote); a malloc'd C string or NULL. */
static char *parse_string(parser *ps)
{
    ps->p++; /* the quote */
    /* Decoded text is never longer than the source, so one allocation suffices. */
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
    char *out = malloc((size_t)(q - ps->p) + 1), *o = out;
    if (!out)
        return fail(ps, "out of memory"), NULL;
    for (;;) {
        if (ps->p >= ps->end) {
            fail(ps, "unterminated string");
            break;
        }
        unsigned char c = (unsigned char)*ps->p++;
        if (c == '"') {
            *o = 0;
            return out;
        }
        if (c < 0x20) {
            ps->p--;
            fail(ps, "a control character (0x%02x) inside a string must be escaped", c);
            break;
        }
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        if (ps->p >= ps->end) {
            fail(ps, "unterminated string");
            break;
        }
        char e = *ps->p++;
        switch (e) {
        case '"': *o++ = '"'; continue;
        case '\\': *o++ = '\\'; continue;
        case '/': *o++ = '/'; continue;
        case 'b': *o++ = '\b'; continue;
        case 'f': *o++ = '\f'; continue;
        case 'n': *o++ = '\n'; continue;
        case 'r': *o++ = '\r'; continue;
        case 't': *o++ = '\t'; continue;
        case 'u': break;
        default:
            ps->p--;
            fail(ps, "unknown escape `\\%c`", e);
            free(out);
            return NULL;
        }
        unsigned cp;
        if (!hex4(ps, &cp))
            break;
        if (cp >= 0xD800 && cp <= 0xDBFF) { /* a high surrogate: its low half must follow */
            unsigned lo;
            if (!literal(ps, "\\u") || !hex4(ps, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                fail(ps, "a \\u surrogate pair is incomplete");
                break;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail(ps, "a lone low surrogate \\u%04x", cp);
            break;
        } else if (cp == 0) {
            fail(ps, "\\u0000 is not allowed in a string here");
            break;
        }
        /* Six source bytes (\uXXXX) always hold the at most four UTF-8 bytes of one. */
        o += put_utf8(o, cp);
    }
    free(out);
    return NULL;
}

static int parse_number(parser *ps, double *out)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return fail(ps, "expected a value"), 0;
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "a digit must follow the decimal point"), 0;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "a digit must follow the exponent"), 0;
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    char buf[128];
    size_t n = (size_t)(ps->p - s);
    if (n >= sizeof buf)
        return fail(ps, "number too long"), 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return 1;
}

static void free_inside(jv *v)
{
    if (v->type == JV_STRING)
        free(v->string);
    if (v->type == JV_ARRAY || v->type == JV_OBJECT) {
        for (int i = 0; i < v->n; i++) {
            free_inside(&v->items[i]);
            if (v->keys)
                free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
    memset(v, 0, sizeof *v);
}

static int parse_value(parser *ps, jv *v, int depth);

/* An array or object at the cursor; items appended with amortised growth. */
static int parse_container(parser *ps, jv *v, int depth, int object)
{
    const char close = object ? '}' : ']';
    v->type = object ? JV_OBJECT : JV_ARRAY;
    ps->p++;
    if (depth >= JSON_READ_MAX_DEPTH)
        return fail(ps, "nested deeper than %d levels", JSON_READ_MAX_DEPTH), 0;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 1;
    }
    int cap = 0;
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 8;
            jv *items = realloc(v->items, cap * sizeof *items);
            char **keys = object ? realloc(v->keys, cap * sizeof *keys) : NULL;
            if (!items || (object && !keys))
                return fail(ps, "out of memory"), 0;
            v->items = items;
            if (object)
                v->keys = keys;
        }
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected a quoted key"), 0;
            char *k = parse_string(ps);
            if (!k)
                return 0;
            v->keys[v->n] = k;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                memset(&v->items[v->n++], 0, sizeof(jv));
                return fail(ps, "expected ':' after an object key"), 0;
            }
            ps->p++;
        }
        jv *item = &v->items[v->n++];
        memset(item, 0, sizeof *item);
        if (!parse_value(ps, item, depth + 1))
            return 0;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 1;
        }
        return fail(ps, "expected ',' or '%c'", close), 0;
    }
}

static int parse_value(parser *ps, jv *v, int depth)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end of input"), 0;
    switch (*ps->p) {
    case '{': return parse_container(ps, v, depth, 1);
    case '[': return parse_container(ps, v, depth, 0);
    case '"':
        v->type = JV_STRING;
        v->string = parse_string(ps);
        return v->string != NULL;
    case 't': if (literal(ps, "true")) { v->type = JV_BOOL; v->boolean = 1; return 1; } break;
    case 'f': if (literal(ps, "false")) { v->type = JV_BOOL; return 1; } break;
    case 'n': if (literal(ps, "null")) { v->type = JV_NULL; return 1; } break;
    default:
        v->type = JV_NUMBER;
        return parse_number(ps, &v->number);
    }
    return fail(ps, "expected a value"), 0;
}

jv *jv_parse(const char *text, size_t len, char *err, int errlen)
{
    parser ps = {text, text + len, text, err, errlen, 0};
    if (errlen > 0)
        err[0] = 0;
    jv *root = calloc(1, sizeof *root);
    if (!root) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (parse_value(&ps, root, 0)) {
        skip_ws(&ps);
        if (ps.p == ps.end)
            return root;
        fail(&ps, "unexpected text after the value");
    }
    jv_free(root);
    return NULL;
}

jv *jv_parse_file(const char *path, size_t max_bytes, char *err, int errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            snprintf(err, errlen, "%s: out of memory", path);
            return NULL;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || n > max_bytes)
            break;
        cap *= 2;
        char *bigger = realloc(buf, cap);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    const int read_error = ferror(f);
    fclose(f);
    if (read_error || n > max_bytes) {
        free(buf);
        snprintf(err, errlen, read_error ? "%s: read error" : "%s: larger than %zu bytes", path,
                 max_bytes);
        return NULL;
    }
    char inner[400];
    jv *v = jv_parse(buf, n, inner, sizeof inner);
    free(buf);
    if (!v)
        snprintf(err, errlen, "%s: %s", path, inner);
    return v;
}

void jv_free(jv *v)
{
    if (!v)
        return;
    free_inside(v);
    free(v);
}

const jv *jv_get(const jv *v, const char *key)
{
    if (!v || v->type != JV_OBJECT)
        return NULL;
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

const jv *jv_at(const jv *v, int i)
{
    return v && v->type == JV_ARRAY && i >= 0 && i < v->n ? &v->items[i] : NULL;
}

int jv_len(const jv *v)
{
    return v && v->type == JV_ARRAY ? v->n : 0;
}

const char *jv_str(const jv *v, const char *fallback)
{
    return v && v->type == JV_STRING ? v->string : fallback;
}

double jv_num(const jv *v, double fallback)
{
    return v && v->type == JV_NUMBER ? v->number : fallback;
}

int jv_bool(const jv *v, int fallback)
{
    return v && v->type == JV_BOOL ? v->boolean : fallback;
}
