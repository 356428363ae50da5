/* exports_fault.c - a failing check's fault in the exports (exports.h): results.json's "fault"
 * object (the grader's one reading of the report, grader/fault/fault.h) as the line a student
 * saw under the check, for every format. */
#include "exports.h"

#include <string.h>

void export_fault_text(const jv *check, int with_hint, char *buf, size_t len)
{
    const jv *f = jv_get(check, "fault");
    buf[0] = 0;
    if (!f || len == 0)
        return;
    const char *kind = jv_str(jv_get(f, "kind"), ""), *file = jv_str(jv_get(f, "file"), "");
    const char *kernel = jv_str(jv_get(f, "kernel"), ""), *block = jv_str(jv_get(f, "block"), "");
    const char *thread = jv_str(jv_get(f, "thread"), "");
    const char *hint = with_hint ? jv_str(jv_get(f, "hint"), "") : "";
    const int line = (int)jv_num(jv_get(f, "line"), 0);
    char place[320] = "", where[400] = "", text[1600];
    if (file[0])
        snprintf(place, sizeof place, " at %s:%d", file, line);
    if (kernel[0])
        snprintf(where, sizeof where, " in kernel %s, block %s, thread %s", kernel,
                 block[0] ? block : "?", thread[0] ? thread : "?");
    snprintf(text, sizeof text, "fault: %s%s%s%s%s", kind[0] ? kind : "a fault of the code",
             place, where, hint[0] ? ". Hint: " : "", hint);
    text_visible(buf, len, text, 0); /* one line, whatever the report held */
}
