/* exports_text.c - text as the exports write it (exports_parts.h): XML and HTML escaped, a
 * lab's number and name. */
#include "exports_parts.h"

#include <stdlib.h>

/* XML and HTML text or attribute: rendered visible (common/text.h), then escaped. */
void put_xml(FILE *f, const char *s)
{
    char *c = text_visible_dup(s ? s : "", 0);
    for (const char *p = c; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    }
    free(c);
}

/* A lab's number and name from the report, with `sep` between them, for XML or Markdown. */
void put_lab(FILE *f, const jv *lab, const char *sep, void (*put)(FILE *, const char *))
{
    put(f, jv_str(jv_get(lab, "number"), ""));
    fputs(sep, f);
    put(f, jv_str(jv_get(lab, "lab"), ""));
}
