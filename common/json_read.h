/* json_read.h - a small JSON reader: text in, a tree of values out.
 *
 * The counterpart of json.h's writer, for programs that read the grader's reports
 * (results.json) instead of scraping its terminal output. Strict RFC 8259: one value,
 * whitespace around it, nothing else; strings are returned as UTF-8 with escapes decoded
 * (\uXXXX surrogate pairs included; \u0000 is refused, so every string is a C string);
 * nesting deeper than JSON_READ_MAX_DEPTH is refused. Errors say where: "line 3, column 7:
 * expected ':' after an object key". */
#ifndef COMMON_JSON_READ_H
#define COMMON_JSON_READ_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_READ_MAX_DEPTH 64

typedef enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT } jv_type;

typedef struct jv {
    jv_type type;     /* which of the fields below means something */
    int boolean;      /* JV_BOOL: 0 or 1 */
    double number;    /* JV_NUMBER */
    char *string;     /* JV_STRING: decoded UTF-8, NUL-terminated */
    int n;            /* JV_ARRAY, JV_OBJECT: how many items / members */
    struct jv *items; /* JV_ARRAY, JV_OBJECT: the values, in document order */
    char **keys;      /* JV_OBJECT: keys[i] names items[i] */
} jv;

/* Parse len bytes of text. Returns the root (free with jv_free), or NULL with a one-line
 * message in err. */
jv *jv_parse(const char *text, size_t len, char *err, int errlen);
/* Read and parse a whole file (at most max_bytes; larger is an error). Same contract. */
jv *jv_parse_file(const char *path, size_t max_bytes, char *err, int errlen);
void jv_free(jv *v);

/* Member `key` of an object (the first one of that name), or NULL if v is not an object or
 * has none. Safe to chain: jv_get(jv_get(root, "a"), "b"). */
const jv *jv_get(const jv *v, const char *key);
/* Item i of an array, or NULL. */
const jv *jv_at(const jv *v, int i);
/* Items in an array (0 for anything else, NULL included). */
int jv_len(const jv *v);
/* The string, or fallback when v is NULL or not a string. */
const char *jv_str(const jv *v, const char *fallback);
/* The number, or fallback when v is NULL or not a number. */
double jv_num(const jv *v, double fallback);
/* The boolean, or fallback when v is NULL or not a boolean. */
int jv_bool(const jv *v, int fallback);

#ifdef __cplusplus
}
#endif
#endif
