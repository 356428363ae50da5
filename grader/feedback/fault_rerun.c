/* fault_rerun.c - TRUSTED, NO GPU: a GPU fault of the student's code run once more on the CPU
 * emulator, in the sandbox, to name its line. See fault_rerun.h. */
#include "fault_rerun.h"
#include "../wire/folder.h"
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
