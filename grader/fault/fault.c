/* fault.c - TRUSTED, NO GPU: a fault report of the student's code, read once (fault.h). */
#include "fault.h"
#include "../../common/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char report_head[] = "cuda-emu: error: ";

int fault_mine(const char *path, size_t n, const char *rel)
{
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    const size_t rl = strlen(rel), bl = strlen(base), folder = (size_t)(base - rel);
    if ((n == rl && !memcmp(path, rel, n)) || (n > rl && path[n - rl - 1] == '/' &&
                                                !memcmp(path + n - rl, rel, rl)) ||
        (n == bl && !memcmp(path, base, n)) ||
        (n > bl && path[n - bl - 1] == '/' && !memcmp(path + n - bl, base, bl)))
        return 1;
    /* a helper of the student's: in the lab's folder as compiled, at any depth, never up */
    if (!folder || n <= folder || memcmp(path, rel, folder))
        return 0;
    for (size_t i = folder; i + 2 < n; i++)
        if (path[i] == '.' && path[i + 1] == '.' && (i == folder || path[i - 1] == '/') &&
            path[i + 2] == '/')
            return 0;
    return 1;
}

/* Which places `text` names: bit 1 a place in the student's files (fault_mine), bit 2 one in
 * another file. A place is a word "PATH:LINE" (PATH holding a '/' or a '.', LINE starting with
 * a digit). */
static int places_named(const char *text, const char *rel)
{
    int found = 0;
    for (const char *colon = strchr(text, ':'); colon; colon = strchr(colon + 1, ':')) {
        if (colon[1] < '0' || colon[1] > '9')
            continue;
        const char *w = colon;
        while (w > text && !strchr(" \t(['\"`,;=", w[-1]))
            w--;
        const size_t n = (size_t)(colon - w);
        if (!n || (!memchr(w, '/', n) && !memchr(w, '.', n)))
            continue; /* "12:30", "line 3:" */
        found |= fault_mine(w, n, rel) ? 1 : 2;
    }
    return found;
}

long fault_first(const char *log)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f)
        return -1;
    char buf[512];
    long n = 0, at = -1;
    while (at < 0 && text_log_line(f, buf, sizeof buf)) { /* (whole lines, as every reader counts) */
        if (!strncmp(buf, report_head, sizeof report_head - 1))
            at = n;
        n++;
    }
    fclose(f);
    return at;
}

long fault_last(const char *log)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f)
        return -1;
    char buf[512];
    long n = 0, at = -1;
    while (text_log_line(f, buf, sizeof buf)) { /* (whole lines, as every reader counts) */
        if (!strncmp(buf, report_head, sizeof report_head - 1))
            at = n;
        n++;
    }
    fclose(f);
    return at;
}

int fault_emu_report(const char *log, long last, const char *rel,
                     void (*line)(const char *text, void *ctx), void *ctx)
{
    FILE *f = last >= 0 ? fopen(log, "r") : NULL;
    if (!f)
        return 0;
    char buf[1024];
    long n = 0;
    int reports = 0, in_report = 0, shown = 0;
    while (text_log_line(f, buf, sizeof buf)) {
        const long at = n++;
        buf[strcspn(buf, "\n")] = 0;
        if (at < last)
            continue;
        if (!strncmp(buf, report_head, sizeof report_head - 1)) {
            in_report = 1;
            shown = 0;
            if (++reports <= 1)
                line(buf, ctx);
            continue;
        }
        if (!in_report || buf[0] != ' ') { /* a report's lines are indented */
            in_report = 0;
            continue;
        }
        /* its lines at the student's file, and those that name no place at all (what was
         * expected, what to try); a line at a place in another file alone is the grader's or
         * the emulator's, or one the student's code names to have it printed */
        const int places = places_named(buf, rel);
        if (reports <= 1 && shown < 6 && (places & 1 || !places)) {
            line(buf + strspn(buf, " "), ctx);
            shown++;
        }
    }
    fclose(f);
    return reports;
}

/* The line (whole lines, as every reader of a log counts them: text_log_line) where a
 * sanitizer's report starts in a log (AddressSanitizer's banner of '=' or its ERROR line, or UndefinedBehaviorSanitizer's
 * "runtime error" line), the first or (last) the last, or -1 if the log holds none. */
static long sanitizer_at(const char *path, int last)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[512];
    long n = 0, banner = -1, at = -1;
    while ((last || at < 0) && text_log_line(f, buf, sizeof buf)) {
        if (strstr(buf, "==ERROR: AddressSanitizer: ") || strstr(buf, ": runtime error: ")) {
            if (!(last && at >= 0 && banner < at)) /* (one report's ERROR and runtime lines) */
                at = banner == n - 1 && banner >= 0 ? banner : n;
        } else if (!strncmp(buf, "=================", 17)) {
            banner = n;
        }
        n++;
    }
    fclose(f);
    return at;
}

/* Where the log's report is (fault.h, fault_parse): into f's path, at, sanitizer, channel;
 * at -1 when there is none. */
static void report_source(fault_record *f, const char *log, int on_gpu)
{
    char channel[1100];
    const size_t l = strlen(log);
    struct stat st;
    snprintf(f->path, sizeof f->path, "%s", log);
    f->at = -1;
    if (l > 4 && !strcmp(log + l - 4, ".log") &&
        snprintf(channel, sizeof channel, "%.*s.report", (int)(l - 4), log) < (int)sizeof channel &&
        stat(channel, &st) == 0 && S_ISREG(st.st_mode)) {
        const long e = fault_first(channel);
        if (e >= 0) {
            snprintf(f->path, sizeof f->path, "%s", channel);
            f->at = e, f->channel = 1;
            return;
        }
        FILE *c = fopen(channel, "r");
        char buf[256];
        int sanitizer = 0;
        while (c && !sanitizer && text_log_line(c, buf, sizeof buf))
            sanitizer = !strncmp(buf, "cuda-emu: sanitizer: ", 21);
        if (c)
            fclose(c);
        if (sanitizer && (f->at = sanitizer_at(log, 1)) >= 0)
            f->sanitizer = 1;
        return;
    }
    if (on_gpu && (l < 8 || strcmp(log + l - 8, ".emu.log")))
        return; /* a GPU check's own log: no emulator ran there, whatever it holds */
    f->at = sanitizer_at(log, 0);
    f->sanitizer = f->at >= 0;
    if (f->at < 0)
        f->at = fault_last(log);
}

/* The kind of the report whose first line is `head`, into f->kind: the emulator's first line up
 * to its kernel ("data race on shared memory"), or a sanitizer's runtime error ("runtime
 * error: store to null pointer"); AddressSanitizer's is its ERROR line's (report_places). */
static void head_kind(fault_record *f, const char *head, int emu)
{
    const char *e = strstr(head, report_head), *u = strstr(head, "runtime error: ");
    if (emu) /* "cuda-emu: error: WHAT in kernel K, ..." */
        snprintf(f->kind, sizeof f->kind, "%.*s", strstr(e, " in kernel ") ?
                 (int)(strstr(e, " in kernel ") - e - 17) : 200, e + 17);
    else if (u) /* "FILE:LINE:COL: runtime error: store to null pointer of type ..." */
        snprintf(f->kind, sizeof f->kind, "%.*s", (int)strcspn(u, "0123456789'"), u);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* The places in the student's files (fault_mine: the lab file, or a helper in its folder) that
 * the report at f->at of f->path names, sorted and joined with ", " into f->places (a race names
 * two), and its kind (head_kind; AddressSanitizer's error and the access: "AddressSanitizer:
 * heap-buffer-overflow READ"). Only the report's own lines count: an emulator's report is its
 * first line and the indented lines under it, a sanitizer's its first lines up to its summary
 * (what the code printed after it, a CUDA_CHECK_LAUNCH's "at FILE:LINE" of the launch, is no
 * place of the fault). */
static void report_places(fault_record *f, const char *rel)
{
    FILE *in = fopen(f->path, "r");
    if (!in)
        return;
    char buf[2048], places[4][256];
    long n = 0;
    int found = 0, emu = 0;
    while (found < 4 && n < f->at + 8 && text_log_line(in, buf, sizeof buf)) {
        if (n++ < f->at)
            continue;
        buf[strcspn(buf, "\n")] = 0;
        if (n - 1 == f->at) {
            emu = strstr(buf, report_head) == buf;
            head_kind(f, buf, emu);
        } else if (emu && buf[0] != ' ') {
            break; /* the report's lines are indented */
        } else if (!emu && (!strncmp(buf, "SUMMARY:", 8) || !strncmp(buf, "Shadow bytes", 12))) {
            break;
        }
        const char *a = strstr(buf, "ERROR: AddressSanitizer: ");
        if (a && !f->kind[0])
            snprintf(f->kind, sizeof f->kind, "AddressSanitizer: %.*s", (int)strcspn(a + 25, " "), a + 25);
        if (!strncmp(buf, "READ of size", 12) || !strncmp(buf, "WRITE of size", 13))
            snprintf(f->kind + strlen(f->kind), sizeof f->kind - strlen(f->kind), " %.*s",
                     (int)strcspn(buf, " "), buf);
        for (char *colon = strchr(buf, ':'); colon && found < 4; colon = strchr(colon + 1, ':')) {
            if (colon[1] < '0' || colon[1] > '9')
                continue;
            char *w = colon; /* the path as the log has it, back to a blank or a bracket */
            while (w > buf && !strchr(" \t(['\"`,;=", w[-1]))
                w--;
            if (w == colon || !fault_mine(w, (size_t)(colon - w), rel))
                continue;
            char place[256];
            snprintf(place, sizeof place, "%.*s", (int)(colon + 1 - w) +
                     (int)strspn(colon + 1, "0123456789"), w);
            int dup = 0;
            for (int i = 0; i < found; i++)
                dup |= !strcmp(places[i], place);
            if (!dup)
                snprintf(places[found++], sizeof places[0], "%s", place);
        }
    }
    fclose(in);
    qsort(places, (size_t)found, sizeof places[0], by_name);
    size_t w = 0;
    for (int i = 0; i < found && w < sizeof f->places; i++)
        w += (size_t)snprintf(f->places + w, sizeof f->places - w, "%s%s", i ? ", " : "", places[i]);
    if (found) {
        const char *colon = strrchr(places[0], ':');
        snprintf(f->file, sizeof f->file, "%.*s", (int)(colon - places[0]), places[0]);
        f->line = atoi(colon + 1);
        snprintf(f->fold, sizeof f->fold, "%.300s|%.300s", f->kind, f->places);
    }
}

/* One line of the report as a reader is shown it; the first naming a kernel, a block and a
 * thread ("... in kernel K, block (x,y,z), thread (x,y,z)", the emulator's head or its line
 * under a sanitizer's report) gives f's kernel, block and thread. */
static void keep_line(fault_record *f, const char *text)
{
    if (f->n_lines < FAULT_LINES)
        snprintf(f->lines[f->n_lines++], FAULT_LINE_MAX, "%s", text);
    const char *b = strstr(text, ", block (");
    if (f->kernel[0] || !b)
        return;
    const char *k = NULL; /* the last "kernel " before the block: the emulator's words end there */
    for (const char *p = strstr(text, "kernel "); p && p < b; p = strstr(p + 1, "kernel "))
        k = p + 7;
    if (!k)
        return;
    snprintf(f->kernel, sizeof f->kernel, "%.*s", (int)(b - k), k);
    const char *block = b + 8, *t = strstr(block, ", thread (");
    snprintf(f->block, sizeof f->block, "%.*s", (int)strcspn(block, ")") + (strchr(block, ')') != NULL), block);
    if (t)
        snprintf(f->thread, sizeof f->thread, "%.*s", (int)strcspn(t + 9, ")") + (strchr(t + 9, ')') != NULL), t + 9);
}

/* A sanitizer's report (AddressSanitizer, UndefinedBehaviorSanitizer: the emulator's build has
 * them) said at the student's line, into f->lines: the report's first line, its frames in the
 * student's file (file:line and function; the grader's and the emulator's frames, which run
 * the student's kernel, left out), and the emulator's lines naming the kernel, block and
 * thread; f->found 1 if the log held such a report. The whole report stays in the log. */
static void sanitizer_lines(fault_record *f, const char *rel)
{
    FILE *in = fopen(f->path, "r");
    if (!in)
        return;
    char buf[2048];
    for (long n = 0; n < f->at && text_log_line(in, buf, sizeof buf);) /* (as sanitizer_at counts) */
        n++;
    /* (stack: 1 inside the access's stack, 2 past it: a frame of a later stack, the thread
     * that ran the kernel "created by T0 here" or where memory was allocated, names the launch
     * line or the host's code, never the fault's place) */
    int frames = 0, overflow = 0, stack = 0;
    while (text_log_line(in, buf, sizeof buf) && f->n_lines < FAULT_LINES) {
        buf[strcspn(buf, "\n")] = 0;
        const int frame_line = buf[strspn(buf, " ")] == '#';
        if (f->found && stack == 1 && !frame_line)
            stack = 2;
        const char *what = strstr(buf, "ERROR: AddressSanitizer: ");
        if (what || strstr(buf, ": runtime error: ")) {
            f->found = 1;
            if (what) { /* "==2==ERROR: AddressSanitizer: heap-buffer-overflow on address ..." */
                char line[200];
                what += strlen("ERROR: AddressSanitizer: ");
                overflow |= !strncmp(what, "heap-buffer-overflow", 20);
                snprintf(line, sizeof line, "AddressSanitizer: %.*s", (int)strcspn(what, " "), what);
                keep_line(f, line);
            } else {
                keep_line(f, buf); /* "FILE:LINE:COL: runtime error: ...": the place first */
            }
        } else if (!f->found) {
            continue;
        } else if (!strncmp(buf, "READ of size", 12) || !strncmp(buf, "WRITE of size", 13) ||
                   !strncmp(buf, "cuda-emu: ", 10)) {
            keep_line(f, buf);
        } else if (frame_line && stack < 2) { /* "    #0 0x7f.. in FUNC FILE:LINE" */
            stack = 1;
            const char *at = strstr(buf, " in ");
            /* its place, the line's last word: the lab file's, or a helper's of the student's */
            const char *place = strrchr(buf, ' ') ? strrchr(buf, ' ') + 1 : buf;
            const char *colon = strchr(place, ':');
            const int mine = colon && colon[1] >= '0' && colon[1] <= '9' &&
                             fault_mine(place, (size_t)(colon - place), rel);
            if (at && mine && place > at + 4 && frames < 3) {
                char line[600];
                /* the file and line, then the function: "at coalescing.cu:25 (in kernel(...))" */
                const int fn = place - at - 5 > 0 ? (int)(place - at - 5) : 0;
                snprintf(line, sizeof line, "at %.200s (in %.*s)", place, fn < 300 ? fn : 300, at + 4);
                keep_line(f, line);
                frames++;
            }
        }
    }
    fclose(in);
    f->no_frame = f->found && !frames;
    if (overflow) /* the advice for that kind: an index, not a pointer */
        snprintf(f->hint, sizeof f->hint, "%s", FAULT_OVERFLOW_HINT);
}

/* The emulator's report, line by line (fault_emu_report): kept, and its last line naming no
 * place is its advice (what was expected, what to try). */
struct emu_ctx {
    fault_record *f;
    const char *rel;
};
static void emu_line(const char *text, void *ctx)
{
    struct emu_ctx *c = ctx;
    if (c->f->n_lines > 0 && !places_named(text, c->rel))
        snprintf(c->f->hint, sizeof c->f->hint, "%s", text);
    keep_line(c->f, text);
}

void fault_parse(fault_record *f, const char *log, const char *rel, int on_gpu)
{
    memset(f, 0, sizeof *f);
    f->at = f->output_upto = -1;
    if (!log || !log[0])
        return;
    report_source(f, log, on_gpu);
    /* what the code printed ends where the first report starts, whichever said the fault: a
     * sanitizer's and the emulator's, from two threads at once, can interleave in the log */
    long upto = f->sanitizer ? f->at : fault_first(log);
    const long first_report = sanitizer_at(log, 0);
    if (first_report >= 0 && (upto < 0 || first_report < upto))
        upto = first_report;
    f->output_upto = upto;
    if (f->at < 0)
        return;
    report_places(f, rel);
    if (f->sanitizer) {
        sanitizer_lines(f, rel);
    } else {
        struct emu_ctx c = {f, rel};
        f->found = 1;
        fault_emu_report(f->path, f->at, rel, emu_line, &c);
    }
}

void fault_of_check(fault_check *c, const char *log, int faulted, const char *rerun_log,
                    const char *rel, int on_gpu)
{
    c->faulted = faulted && log && log[0];
    fault_parse(&c->own, c->faulted ? log : "", rel, on_gpu);
    fault_parse(&c->rerun, rerun_log, rel, on_gpu);
    c->shown = c->own.fold[0] ? &c->own : c->rerun.fold[0] ? &c->rerun
             : c->own.found ? &c->own : c->rerun.found ? &c->rerun : NULL;
}
