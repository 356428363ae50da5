/* fault_rerun.c - TRUSTED, NO GPU: a GPU fault of the student's code run once more on the CPU
 * emulator, in the sandbox, to name its line. See fault_rerun.h. */
#include "fault_rerun.h"
#include "../report/folder.h"
#include "../wire/check_line.h"
#include "../../common/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fault_rerun_kind(const record_list *l)
{
    /* The errors a GPU raises for a fault inside a kernel: the kernel's own line explains each
     * (a trap ends a kernel with cudaErrorLaunchFailure, "unspecified launch failure"). */
    static const char *const faults[] = {
        "cudaErrorIllegalAddress", "cudaErrorMisalignedAddress", "cudaErrorLaunchFailure",
        "cudaErrorIllegalInstruction", "cudaErrorAssert", "cudaErrorHardwareStackError",
        "cudaErrorInvalidAddressSpace", "cudaErrorInvalidPc"};
    const record *err = find_record(l, "error", 0);
    if (!err) {
        /* No error, but the student's call wrote outside its output (the guard bytes around it
         * changed, which says where in the buffer, never which line): the emulator, whose red
         * zones sit right at an allocation's ends, stops at the write itself. Or its values
         * came out wrong in a correctness check: a read past an input, or a race, a GPU runs
         * through without a word, and the emulator stops at it (or finds nothing: the values
         * themselves are wrong). */
        const char *kind = NULL;
        for (const record *c = find_record(l, "correct", 0); c;
             c = find_record(l, "correct", (int)(c - l->rec) + 1)) {
            double guard_ok = 1, bad = 0;
            const char *impl = record_get(c, "impl");
            if (!impl || strncmp(impl, "student", 7))
                continue;
            if (record_get_num(c, "guard_ok", &guard_ok) == 0 && guard_ok == 0)
                return FAULT_RERUN_OUTSIDE;
            if (!strcmp(impl, "student") && record_get_num(c, "bad", &bad) == 0 && bad > 0)
                kind = FAULT_RERUN_WRONG;
        }
        return kind;
    }
    const char *who = record_get(err, "who"), *kind = record_get(err, "kind"),
               *name = record_get(err, "name");
    double reference_ran = 0;
    if (!who || strcmp(who, "student") || !kind || !name ||
        record_get_num(err, "reference_ran", &reference_ran) == 0) /* "no usable GPU" claims */
        return NULL;
    if (!strcmp(kind, "crash")) /* its process died (a host-side fault in the launcher) */
        return name;
    if (strcmp(kind, "cuda"))
        return NULL;
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (!strcmp(name, faults[i]))
            return name;
    return NULL;
}

int fault_rerun_prepare(fault_rerun *r, char *why, size_t why_len)
{
    const char *need[] = {r->harness, r->worker, r->student, r->reference};
    for (int i = 0; i < 4; i++)
        if (!need[i] || access(need[i], R_OK) != 0) {
            snprintf(why, why_len, "the CPU emulator's build of this lab is not there (make grade "
                     "builds it beside the GPU's unless GRADE_WHERE=0)");
            return -1;
        }
    const int n = report_check_file(r->input, sizeof r->input, r->logs, r->lab, r->check,
                                    REPORT_RERUN_PREFIX "cmd");
    if (n < 0 || (size_t)n >= sizeof r->input - 24) {
        snprintf(why, why_len, "the report folder's path is too long");
        return -1;
    }
    report_check_file(r->log, sizeof r->log, r->logs, r->lab, r->check,
                      REPORT_RERUN_PREFIX REPORT_CHECK_LOG);
    report_check_file(r->records, sizeof r->records, r->logs, r->lab, r->check,
                      REPORT_RERUN_PREFIX REPORT_CHECK_RECORDS);
    report_check_file(r->replies, sizeof r->replies, r->logs, r->lab, r->check,
                      REPORT_RERUN_PREFIX "out");
    report_check_file(r->harness_log, sizeof r->harness_log, r->logs, r->lab, r->check,
                      REPORT_RERUN_PREFIX REPORT_HARNESS_LOG);
    unlink(r->log);
    unlink(r->records);
    /* The check as the driver sends it (the same index and seed: the same sizes and inputs,
     * at the emulator's size where a check names one, and a hidden size drawn again where it
     * is more than twice the largest visible case: grader/harness/hidden_size.h) */
    check_cmd c;
    memset(&c, 0, sizeof c);
    c.check = r->check;
    c.seed = r->seed;
    c.threshold = 1;
    c.cap_s = 1;
    c.timeout_s = r->timeout_s;
    snprintf(c.records, sizeof c.records, "%s", r->records);
    snprintf(c.log, sizeof c.log, "%s", r->log);
    char line[CHECK_LINE_MAX];
    FILE *f = check_line_format(&c, line, sizeof line) == 0 ? fopen(r->input, "w") : NULL;
    if (!f || fputs(line, f) < 0 || fclose(f) != 0) {
        snprintf(why, why_len, "cannot write the check's command to %s", r->input);
        return -1;
    }
    /* Isolation required: the harness refuses to load student code into its own process */
    int k = 0;
    char **a = r->argv;
    a[k++] = (char *)r->harness, a[k++] = "--serve", a[k++] = "--isolation", a[k++] = "on";
    a[k++] = "--require-isolation", a[k++] = "--worker", a[k++] = (char *)r->worker;
    a[k++] = "--student", a[k++] = (char *)r->student, a[k++] = "--reference";
    a[k++] = (char *)r->reference;
    if (sandbox_places_args(&r->places, a, &k, 62) != 0) {
        snprintf(why, why_len, "too many hidden places for the harness's command line");
        return -1;
    }
    a[k] = NULL;
    return 0;
}

int fault_rerun_mine(const char *path, size_t n, const char *rel)
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

/* Which places `text` names: bit 1 a place in the student's files (fault_rerun_mine), bit 2
 * one in another file. A place is a word "PATH:LINE" (PATH holding a '/' or a '.', LINE
 * starting with a digit). */
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
        found |= fault_rerun_mine(w, n, rel) ? 1 : 2;
    }
    return found;
}

static const char report_head[] = "cuda-emu: error: ";

long fault_rerun_first(const char *log)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f)
        return -1;
    char buf[512];
    long n = 0, at = -1;
    while (at < 0 && fgets(buf, sizeof buf, f)) { /* (lines counted as the driver counts them) */
        if (!strncmp(buf, report_head, sizeof report_head - 1))
            at = n;
        n++;
    }
    fclose(f);
    return at;
}

long fault_rerun_last(const char *log)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f)
        return -1;
    char buf[512];
    long n = 0, at = -1;
    while (fgets(buf, sizeof buf, f)) { /* (lines counted as the driver counts them) */
        if (!strncmp(buf, report_head, sizeof report_head - 1))
            at = n;
        n += buf[strlen(buf) - 1] == '\n' || feof(f); /* (a longer line is one line) */
    }
    fclose(f);
    return at;
}

int fault_rerun_report(const char *log, long last, const char *rel,
                       void (*line)(const char *text))
{
    FILE *f = last >= 0 ? fopen(log, "r") : NULL;
    if (!f)
        return 0;
    char buf[1024];
    long n = 0;
    int reports = 0, in_report = 0, shown = 0;
    while (fgets(buf, sizeof buf, f)) {
        const long at = n;
        n += buf[strlen(buf) - 1] == '\n' || feof(f);
        buf[strcspn(buf, "\n")] = 0;
        if (at < last)
            continue;
        if (!strncmp(buf, report_head, sizeof report_head - 1)) {
            in_report = 1;
            shown = 0;
            if (++reports <= 1)
                line(buf);
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
            line(buf + strspn(buf, " "));
            shown++;
        }
    }
    fclose(f);
    return reports;
}

int fault_rerun_go(fault_rerun *r, const emu_build *e, const record *dev, double *seconds,
                   int *timed_out, char *why, size_t why_len)
{
    r->places = emu_places(e);
    if (fault_rerun_prepare(r, why, why_len) != 0)
        return -1;
    char asan[256], sms_env[32], *env[3];
    emu_env(e, dev, asan, sms_env, env);
    const double start = wall_seconds();
    const int status = run_counted(r->argv, env, r->input, r->replies, r->harness_log, 0, 1,
                                   r->timeout_s + 10);
    unlink(r->input); /* (it holds the seed; the logs folder is hidden from student code too) */
    unlink(r->replies);
    *seconds = wall_seconds() - start;
    *timed_out = status == -2;
    return 0;
}

int fault_rerun_values_right(const char *records)
{
    record_list there;
    memset(&there, 0, sizeof there);
    read_records(records, &there);
    int compared = 0, wrong_there = 0;
    for (const record *c = find_record(&there, "correct", 0); c;
         c = find_record(&there, "correct", (int)(c - there.rec) + 1)) {
        const char *impl = record_get(c, "impl");
        double bad = 0, guard_ok = 1;
        if (!impl || strcmp(impl, "student"))
            continue;
        compared++;
        wrong_there |= (record_get_num(c, "bad", &bad) == 0 && bad > 0) ||
                       (record_get_num(c, "guard_ok", &guard_ok) == 0 && guard_ok == 0);
    }
    const int right = compared > 0 && !wrong_there && !find_record(&there, "error", 0);
    free_records(&there);
    return right;
}
