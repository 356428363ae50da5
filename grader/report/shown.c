/* shown.c - TRUSTED, NO GPU: paths as the student knows them (shown.h). */
#include "shown.h"

#include "../../common/text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHOWN 4
static char shown_from[MAX_SHOWN][PATH_MAX + 1]; /* prefixes cut out, each ending in '/' */
static int n_shown;

static void shown_add(const char *dir)
{
    char real[PATH_MAX];
    for (int pass = 0; pass < 2 && n_shown < MAX_SHOWN; pass++) {
        const char *d = pass == 0 ? dir : realpath(dir, real);
        if (!d || !d[0] || strlen(d) + 2 > sizeof shown_from[0])
            continue;
        snprintf(shown_from[n_shown], sizeof shown_from[0], "%s%s", d,
                 d[strlen(d) - 1] == '/' ? "" : "/");
        if (n_shown == 0 || strcmp(shown_from[n_shown], shown_from[n_shown - 1]))
            n_shown++;
    }
}

#define MAX_PLACES 64
static char place_from[MAX_PLACES][256], place_to[MAX_PLACES][PATH_MAX];
static int n_places;

void shown_place(const char *as_compiled, const char *as_given)
{
    if (n_places == MAX_PLACES || strlen(as_compiled) >= sizeof place_from[0] ||
        strlen(as_given) >= sizeof place_to[0] || !strcmp(as_compiled, as_given))
        return;
    snprintf(place_from[n_places], sizeof place_from[0], "%s", as_compiled);
    snprintf(place_to[n_places++], sizeof place_to[0], "%s", as_given);
}

void shown_submission(const char *student, const char *logs)
{
    shown_add(student);
    shown_add(logs);
}

const char *shown_text(const char *text, char *out, size_t len)
{
    static const char grader_place[] = "made at grader/", ipc[] = "cudaIpcOpenMemHandle allocation";
    size_t n = 0;
    if (!len)
        return out;
    for (const char *p = text ? text : ""; *p && n + 1 < len;) {
        int cut = 0;
        for (int i = 0; i < n_shown && !cut; i++) {
            const size_t l = strlen(shown_from[i]);
            if (!strncmp(p, shown_from[i], l))
                p += l, cut = 1;
        }
        if (cut)
            continue;
        /* a place as compiled, where a path starts (not inside a longer one) */
        const int starts = p == text || strchr(" \t(\"'`", p[-1]) != NULL;
        for (int i = 0; i < n_places && starts && !cut; i++) {
            const size_t l = strlen(place_from[i]);
            const int folder = l > 0 && place_from[i][l - 1] == '/'; /* a helper's, in it */
            if (!strncmp(p, place_from[i], l) &&
                (folder ? p[l] != 0 && !strchr(" :", p[l]) : p[l] == ':' || p[l] == 0 || p[l] == ' ')) {
                n += (size_t)snprintf(out + n, len - n, "%s", place_to[i]);
                if (n >= len)
                    n = len - 1;
                p += l, cut = 1;
            }
        }
        if (cut)
            continue;
        if (!strncmp(p, ipc, sizeof ipc - 1)) { /* how the worker maps the grader's buffers */
            n += (size_t)snprintf(out + n, len - n, "buffer the grader passed to your code");
            if (n >= len)
                n = len - 1;
            p += sizeof ipc - 1;
            continue;
        }
        if (!strncmp(p, grader_place, sizeof grader_place - 1)) {
            /* "made at grader/FILE:LINE": the grader's buffer, not a line of the student's */
            n += (size_t)snprintf(out + n, len - n, "made by the grader");
            if (n >= len)
                n = len - 1;
            p += sizeof grader_place - 1;
            p += strcspn(p, ") ,;");
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = 0;
    return out;
}

void put_shown(FILE *f, const char *text)
{
    static char buf[8192];
    text_put(f, shown_text(text, buf, sizeof buf), 0);
}
