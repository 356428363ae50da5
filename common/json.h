/* json.h - a small streaming JSON writer for the grade report (results.json).
 *
 * Values are written in order; the writer inserts commas and escapes strings: quotes,
 * backslashes, and every control common/text.h names (C0, DEL, C1, line separators,
 * bidirectional controls) as \uXXXX, so that the file shows no student text raw; valid UTF-8
 * passes as it is and each byte that is not (JSON text must be UTF-8) becomes \ufffd.
 * Non-finite numbers, which JSON cannot hold, are written as null. */
#ifndef COMMON_JSON_H
#define COMMON_JSON_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    FILE *out;                     /* where the text goes */
    int depth;                     /* open objects and arrays */
    int count[JSON_MAX_DEPTH];     /* values written so far at each depth (for commas) */
    int in_object[JSON_MAX_DEPTH]; /* 1 if that depth is an object (members have keys) */
} json_writer;

void json_init(json_writer *w, FILE *out);
/* Open/close containers. `key` names the member inside an object; pass NULL in arrays
 * and at the top level. */
void json_object_begin(json_writer *w, const char *key);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w, const char *key);
void json_array_end(json_writer *w);
/* Scalars. A NULL string is written as null. */
void json_string(json_writer *w, const char *key, const char *value);
void json_number(json_writer *w, const char *key, double value);
void json_int(json_writer *w, const char *key, long long value);
void json_bool(json_writer *w, const char *key, int value);

/* Write s as a quoted JSON string to out, escaped as above. */
void json_write_escaped(FILE *out, const char *s);

#ifdef __cplusplus
}
#endif
#endif
