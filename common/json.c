/* json.c - streaming JSON writer. See json.h. */
#include "json.h"
#include "text.h"
#include "util.h"

#include <math.h>
#include <string.h>

void json_init(json_writer *w, FILE *out)
{
    w->out = out;
    w->depth = 0;
    w->count[0] = 0;
    w->in_object[0] = 0;
}

void json_write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    text_scan st = {0, 0};
    while (left > 0) {
        unsigned cp = 0;
        const int n = utf8_seq(p, left, &cp);
        if (n == 0) { /* not UTF-8: JSON text must be */
            fputs("\\ufffd", out);
            p++, left--;
            st.word_left = 0;
            continue;
        }
        const int escape = text_scan_escapes(&st, p, left, cp, n);
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (escape && cp >= 0x10000) /* a surrogate pair, as JSON spells it */
                fprintf(out, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
                        0xDC00 + ((cp - 0x10000) & 0x3FF));
            else if (escape)
                fprintf(out, "\\u%04x", cp);
            else
                fwrite(p, 1, (size_t)n, out);
        }
        p += n, left -= (size_t)n;
    }
    fputc('"', out);
}

/* Comma, newline/indent and the member's key before the next value. */
static void value_prefix(json_writer *w, const char *key)
{
    if (w->count[w->depth]++ > 0)
        fputc(',', w->out);
    if (w->depth > 0) {
        fputc('\n', w->out);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->out);
    }
    if (w->in_object[w->depth]) {
        json_write_escaped(w->out, key ? key : "");
        fputs(": ", w->out);
    }
}

static void open_container(json_writer *w, const char *key, int is_object)
{
    value_prefix(w, key);
    fputc(is_object ? '{' : '[', w->out);
    if (++w->depth >= JSON_MAX_DEPTH)
        fatal("json: nesting deeper than %d", JSON_MAX_DEPTH);
    w->count[w->depth] = 0;
    w->in_object[w->depth] = is_object;
}

static void close_container(json_writer *w, char closer)
{
    const int had_members = w->count[w->depth] > 0;
    w->depth--;
    if (had_members) {
        fputc('\n', w->out);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->out);
    }
    fputc(closer, w->out);
    if (w->depth == 0)
        fputc('\n', w->out);
}

void json_object_begin(json_writer *w, const char *key) { open_container(w, key, 1); }
void json_object_end(json_writer *w) { close_container(w, '}'); }
void json_array_begin(json_writer *w, const char *key) { open_container(w, key, 0); }
void json_array_end(json_writer *w) { close_container(w, ']'); }

void json_string(json_writer *w, const char *key, const char *value)
{
    value_prefix(w, key);
    if (value)
        json_write_escaped(w->out, value);
    else
        fputs("null", w->out);
}

void json_number(json_writer *w, const char *key, double value)
{
    value_prefix(w, key);
    if (isfinite(value))
        fprintf(w->out, "%.17g", value);
    else
        fputs("null", w->out);
}

void json_int(json_writer *w, const char *key, long long value)
{
    value_prefix(w, key);
    fprintf(w->out, "%lld", value);
}

void json_bool(json_writer *w, const char *key, int value)
{
    value_prefix(w, key);
    fputs(value ? "true" : "false", w->out);
}
