/* verdict.c - TRUSTED, NO GPU: the verdict of each check from its records. See verdict.h. */
#include "verdict.h"
#include "verdict_parts.h"
#include "../../common/stats.h"
#include "../../common/text.h"
#include "../../common/util.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Verdicts                                                                                    */

/* A short plain-language reading of the CUDA errors student kernels cause. */
static const char *cuda_error_meaning(const char *name)
{
    static const struct { const char *name, *meaning; } table[] = {
        {"cudaErrorIllegalAddress", "illegal memory access (a kernel read or wrote outside "
                                    "its buffers)"},
        {"cudaErrorMisalignedAddress", "misaligned address (a wide load or store, such as "
                                       "float4, at an address not a multiple of its size)"},
        {"cudaErrorLaunchFailure", "kernel launch failure"},
        {"cudaErrorLaunchTimeout", "kernel ran too long"},
        {"cudaErrorInvalidConfiguration", "invalid launch configuration (grid or block too "
                                          "large, or zero)"},
        {"cudaErrorLaunchOutOfResources", "too many resources requested for launch (registers "
                                          "or shared memory per block)"},
        {"cudaErrorInvalidValue", "invalid argument to a CUDA call"},
        {"cudaErrorIllegalInstruction", "illegal instruction in a kernel"},
        {"cudaErrorAssert", "device-side assert failed"},
        {"cudaErrorMemoryAllocation", "out of device memory"},
        {"cudaErrorHardwareStackError", "stack overflow in a kernel (deep recursion or large "
                                        "local arrays)"},
    };
    for (size_t i = 0; i < ARRAY_LEN(table); i++)
        if (strcmp(name, table[i].name) == 0)
            return table[i].meaning;
    return NULL;
}

/* A decision's message, detail and size are shown as they are (terminal, report.txt,
 * results.json, the batch's exports), and parts of them come from the student's process: the
 * problem its worker reported, the CUDA error name it replied with, and under the fallback any
 * record. Rendered visible here, once, so that no reader of them meets a control character
 * (common/text.h). */
static void make_visible(check_decision *d)
{
    char shown[sizeof d->detail];
    text_visible(shown, sizeof d->message, d->message, 0);
    memcpy(d->message, shown, sizeof d->message);
    text_visible(shown, sizeof d->detail, d->detail, 0);
    memcpy(d->detail, shown, sizeof d->detail);
    text_visible(shown, sizeof d->size, d->size, 0); /* shown in a check's name */
    memcpy(d->size, shown, sizeof d->size);
}

static int decide_process_raw(const lab_info *lab, const child_outcome *o, const record_list *l,
                              check_decision *d);
/* Bytes as a report says them: "1.5 GiB", "300 MiB". */
static const char *bytes_text(double b, char *buf, size_t len)
{
    if (b >= (double)(1ull << 30))
        snprintf(buf, len, "%.1f GiB", b / (double)(1ull << 30));
    else
        snprintf(buf, len, "%.0f MiB", b / (double)(1ull << 20));
    return buf;
}

/* What a `reclaim` record says (see MEMORY_BLAME_FRACTION). */
typedef struct reclaim_figures {
    const char *who;    /* whose allocation ran short: "harness" or "reference" */
    double needed;      /* bytes asked for, 0 if unknown */
    double free_before, free_after, total; /* bytes */
    int student_ended;  /* 1 if a process of the student's was ended */
    int blames;         /* 1 if the figures put the shortage on that process */
} reclaim_figures;

/* The first `reclaim` record that blames the student, else the last one; 0 if there is none
 * (or it is incomplete). */
static int read_reclaim(const record_list *l, reclaim_figures *m)
{
    int found = 0;
    for (int i = 0; i < l->n; i++) {
        const record *r = &l->rec[i];
        reclaim_figures f;
        double ended = 0;
        if (strcmp(r->type, "reclaim") || record_get_num(r, "free_before", &f.free_before) ||
            record_get_num(r, "free_after", &f.free_after) ||
            record_get_num(r, "total", &f.total) || record_get_num(r, "student_ended", &ended))
            continue;
        f.needed = 0;
        record_get_num(r, "needed", &f.needed);
        f.who = record_get(r, "who") ? record_get(r, "who") : "harness";
        f.student_ended = ended != 0;
        const double freed = f.free_after - f.free_before;
        f.blames = f.student_ended && f.total > 0 && freed >= MEMORY_BLAME_FRACTION * f.total &&
                   (f.needed <= 0 || f.free_after >= f.needed);
        if (!found || !m->blames)
            *m = f;
        found = 1;
    }
    return found;
}

/* The check fails for memory the student's process held when the grader needed it. */
static void blame_memory(const reclaim_figures *m, check_decision *d)
{
    char held[32], total[32], before[32], needed[32];
    bytes_text(m->free_after - m->free_before, held, sizeof held);
    bytes_text(m->total, total, sizeof total);
    bytes_text(m->free_before, before, sizeof before);
    if (!strcmp(m->who, "reference"))
        verdict_set(d, VERDICT_FAIL, "out of GPU memory: the reference's process failed with %s of the "
            "GPU's %s free, while yours held %s of it (ending your process gave that back)",
            before, total, held);
    else if (m->needed > 0)
        verdict_set(d, VERDICT_FAIL, "out of GPU memory: the grader needed %s for this check and found "
            "%s free, while your process held %s of the GPU's %s (ending it gave that back)",
            bytes_text(m->needed, needed, sizeof needed), before, held, total);
    else
        verdict_set(d, VERDICT_FAIL, "out of GPU memory: the grader ran short (%s of the GPU's %s free) "
            "while your process held %s (ending it gave that back)", before, total, held);
    snprintf(d->detail, sizeof d->detail,
             "Give back what you allocate. The grader and the reference need GPU memory for every "
             "check while your process is alive: keep no buffer between calls beyond what the "
             "problem you are given needs, never size one to the device's free memory, and leave "
             "cudaDeviceSetLimit alone (a large stack or heap limit holds memory for the "
             "process's life).");
    snprintf(d->blame, sizeof d->blame, "gpu-memory");
}

/* For an error of the grader's after a shortage of memory that was not the student's: the
 * figures, for whoever reads the report. "" if there is no `reclaim` record. */
static const char *shortage_note(const reclaim_figures *m, int have, char *buf, size_t len)
{
    if (!have)
        return "";
    char freed[32], total[32], before[32];
    bytes_text(m->free_before, before, sizeof before);
    bytes_text(m->total, total, sizeof total);
    if (m->student_ended)
        snprintf(buf, len, "; %s of the GPU's %s were free, and ending the student's process "
                 "gave back %s", before, total,
                 bytes_text(m->free_after - m->free_before, freed, sizeof freed));
    else
        snprintf(buf, len, "; %s of the GPU's %s were free, with no process of the student's "
                 "running", before, total);
    return buf;
}

/* The student's process failed in a way that says "this machine cannot run me" (it ended
 * before its first answer, or its call came back with a CUDA error meaning no usable GPU).
 * Student code ran in that process from its start, so the claim counts only as far as the
 * harness saw it hold: if the reference's process, started the same way in the same sandbox,
 * ran here (`ref_ran`), the failure is the student's, and the message gives that evidence;
 * if it did not, the machine cannot run either and the check is an error. */
static void blame_cannot_run(const record *err, const char *name, const char *msg, int ref_ran,
                             const reclaim_figures *mem, int have_reclaim, check_decision *d)
{
    char note[256];
    const char *kind = record_get(err, "kind");
    const int at_start = kind && !strcmp(kind, "start");
    if (!ref_ran) {
        if (at_start)
            verdict_set(d, VERDICT_ERROR, "could not run: a worker process could not start (%s), and the "
                "reference's could not either%s", msg && *msg ? msg : "it exited",
                shortage_note(mem, have_reclaim, note, sizeof note));
        else
            verdict_set(d, VERDICT_ERROR, "could not run: %s (%s), and the reference's process could not "
                "run here either%s", msg && *msg ? msg : name, name,
                shortage_note(mem, have_reclaim, note, sizeof note));
        return;
    }
    if (at_start) {
        double status = -1;
        record_get_num(err, "status", &status);
        verdict_set(d, VERDICT_FAIL, "crashed: your process exited (status %.0f) before it answered the "
            "grader's first message, while the reference's process, started the same way, ran "
            "here", status);
        snprintf(d->detail, sizeof d->detail,
                 "Code of yours ran before the grader called your entry point (the constructor "
                 "of a global object, or a static initialiser) and ended the process. Do that "
                 "work inside your entry point instead.");
    } else {
        verdict_set(d, VERDICT_FAIL, "crashed: your call returned %s, an error that means no usable "
            "GPU, yet the reference's process, in the same sandbox, ran on this GPU", name);
        snprintf(d->detail, sizeof d->detail,
                 "That error means the GPU cannot run the code, but it ran the reference: "
                 "something in your file caused it (cudaSetDevice with another device number, "
                 "code built for another GPU, or an error of its own making). Run the lab alone "
                 "and read its log.");
    }
}

int decide_process(const lab_info *lab, const child_outcome *o, const record_list *l,
                   check_decision *d)
{
    const int decided = decide_process_raw(lab, o, l, d);
    if (decided)
        make_visible(d);
    return decided;
}

/* The verdict of a check whose harness wrote an `error` record: whose call failed decides
 * between the grader's ERROR and the student's FAIL. */
static void decide_error_record(const lab_info *lab, const child_outcome *o, const record *err,
                                const reclaim_figures *mem, int have_reclaim, check_decision *d)
{
    char note[256];
    const char *name = record_get(err, "name");
    const char *where = record_get(err, "where");
    const char *call = record_get(err, "call");
    const char *msg = record_get(err, "message");
    const char *who = record_get(err, "who");
    const char *kind = record_get(err, "kind");
    double reference_ran = 0;
    name = name ? name : "unknown";
    const char *meaning = cuda_error_meaning(name);
    /* (The harness's refusal to run student code unisolated is decided by the driver from
     * the harness's greeting, not from this record: driver.c.) */
    if (who && !strcmp(who, "reference")) {
        verdict_set(d, VERDICT_ERROR, "could not run: the reference solution failed here (%s)%s",
            msg && *msg ? msg : name, shortage_note(mem, have_reclaim, note, sizeof note));
    } else if (who && !strcmp(who, "student") &&
               record_get_num(err, "reference_ran", &reference_ran) == 0) {
        blame_cannot_run(err, name, msg, reference_ran == 1, mem, have_reclaim, d);
    } else if (who && !strcmp(who, "harness") &&
               (cuda_error_is_environment(name) || o->isolated)) {
        verdict_set(d, VERDICT_ERROR, "could not run: %s (%s)%s", msg ? msg : name, name,
            shortage_note(mem, have_reclaim, note, sizeof note));
    } else if (kind && !strcmp(kind, "hang")) {
        verdict_set(d, VERDICT_FAIL, "hung: %s (killed)", msg && *msg ? msg : "no answer");
        snprintf(d->detail, sizeof d->detail,
                 "Look for a loop whose exit condition never becomes true, or a block waiting "
                 "on a barrier or flag that other threads never reach.");
    } else if (kind && !strcmp(kind, "crash")) {
        verdict_set(d, VERDICT_FAIL, "crashed: %s", msg && *msg ? msg : "the process died");
        snprintf(d->detail, sizeof d->detail,
                 "Your code runs in a process of its own; it ended during the call. The log "
                 "below shows what it printed.");
    } else if (!strcmp(name, "cudaErrorContextIsDestroyed")) {
        /* the worker's own answer when the call left its context or stream gone
         * (grader/worker/worker_loop_untrusted.cu, context_or_stream_gone) */
        verdict_set(d, VERDICT_FAIL, "after the call the stream the grader gave your function "
                    "was gone: the device was reset (cudaDeviceReset) or that stream was "
                    "destroyed");
        snprintf(d->detail, sizeof d->detail,
                 "cudaDeviceReset ends the process's CUDA context, and every stream in it; the "
                 "grader's next call in that process could only fail. Destroy only the streams "
                 "your code created, and leave the device to the grader: no cudaDeviceReset in "
                 "a lab's function.");
    } else {
        verdict_set(d, VERDICT_FAIL, "crashed: %s in %s", meaning ? meaning : (msg ? msg : name),
            lab->name);
        snprintf(d->detail, sizeof d->detail,
                 "CUDA reported %s after `%s` (%s). Run the lab alone and read its log; "
                 "compute-sanitizer on a GPU, or EMU=1, point at the guilty line.",
                 name, call ? call : "?", where ? where : "?");
    }
}

static int decide_process_raw(const lab_info *lab, const child_outcome *o, const record_list *l,
                              check_decision *d)
{
    reclaim_figures mem;
    const int have_reclaim = read_reclaim(l, &mem);
    if (have_reclaim && mem.blames) { /* first: whatever failed next followed from it */
        blame_memory(&mem, d);
        return 1;
    }
    const record *err = find_record(l, "error", 0);
    if (err) {
        decide_error_record(lab, o, err, &mem, have_reclaim, d);
        return 1;
    }
    if (o->timed_out) {
        verdict_set(d, VERDICT_FAIL, "hung: no result after %.0f s (killed)", o->seconds);
        snprintf(d->detail, sizeof d->detail,
                 "Look for a loop whose exit condition never becomes true, or a block waiting "
                 "on a barrier or flag that other threads never reach.");
        return 1;
    }
    if (!o->exited) {
        verdict_set(d, VERDICT_FAIL, "crashed: %s (signal %d) in %s", strsignal(o->signal), o->signal,
            lab->name);
        return 1;
    }
    if (o->status == 127) {
        verdict_set(d, VERDICT_ERROR, "could not start the lab's harness");
        return 1;
    }
    if (l->malformed_line) {
        verdict_set(d, VERDICT_FAIL, "garbage in the harness's results (line %d: %s)",
            l->malformed_line, l->malformed_why);
        return 1;
    }
    if (o->status != 0) {
        /* Isolated, the harness holds no student code: its own stop (status 2, an error it
         * could not grade past) is the grader's or the machine's, never the student's. */
        if (o->status == 2 && o->isolated) {
            verdict_set(d, VERDICT_ERROR, "could not run: the grader's harness stopped with an error "
                "(status 2); its log says why");
            return 1;
        }
        verdict_set(d, VERDICT_FAIL, "the lab's harness exited with status %d before finishing the check",
            o->status);
        return 1;
    }
    if (!find_record(l, "begin", 0) || !find_record(l, "end", 0)) {
        verdict_set(d, VERDICT_FAIL, "the lab's harness stopped without reporting a result (%d records)",
            l->n);
        return 1;
    }
    return 0;
}

void greeting_take(greeting *g, int n, const char *line, int asked, int sandbox_seen)
{
    record r;
    const char *why = NULL;
    const int ok = record_parse(line, &r, &why) == 0;
    if (n == 0) {
        double tp = 0;
        const char *sb = ok ? record_get(&r, "sandbox") : NULL;
        const char *detail = ok ? record_get(&r, "detail") : NULL;
        g->heard = 1;
        g->isolated = ok && !strcmp(r.type, "isolation") &&
                      record_get_num(&r, "tamper_proof", &tp) == 0 && tp == 1 && sb &&
                      (!strcmp(sb, "namespaces") || !strcmp(sb, "landlock"));
        snprintf(g->sandbox, sizeof g->sandbox, "%s", g->isolated ? sb : "none");
        snprintf(g->detail, sizeof g->detail, "%s",
                 detail && *detail ? detail : "the lab's harness did not say whether student code "
                                              "runs isolated");
        if (!asked) {
            g->isolated = 0;
            snprintf(g->sandbox, sizeof g->sandbox, "none");
            snprintf(g->detail, sizeof g->detail, "isolation switched off (GRADER_ISOLATION=off)");
        } else if (g->isolated && !sandbox_seen) {
            g->isolated = 0;
            snprintf(g->sandbox, sizeof g->sandbox, "none");
            snprintf(g->detail, sizeof g->detail, "the grader finds no sandbox on this machine "
                     "(neither new namespaces nor Landlock)");
        }
    } else if (ok && !strcmp(r.type, "device")) {
        record_free(&g->device);
        g->device = r;
        return;
    }
    if (ok)
        record_free(&r);
}

/* 1 if the `correct` record says the output was right; otherwise fills d. */
static int decide_correct(const lab_info *lab, const record *c, check_decision *d)
{
    double n = 0, bad = 0, guard_ok = 0, input_ok = 0;
    if (!c || record_get_num(c, "n", &n) || record_get_num(c, "bad", &bad) ||
        record_get_num(c, "guard_ok", &guard_ok) || record_get_num(c, "input_ok", &input_ok)) {
        verdict_set(d, VERDICT_FAIL, "garbage in the harness's results (no complete `correct` record)");
        return 0;
    }
    const char *problem = record_get(c, "problem");
    const char *detail = record_get(c, "detail");
    const char *impl = record_get(c, "impl");
    const char *when = (impl && !strcmp(impl, "student-timed")) ? "in a timed call: " : "";
    if (input_ok == 0) { /* first: a changed input explains any wrong output */
        double at = 0;
        record_get_num(c, "input_at", &at);
        verdict_set(d, VERDICT_FAIL, "%smodified an input (first changed byte %.0f); inputs are read-only",
            when, at);
    } else if (bad > 0 || n <= 0) {
        verdict_set(d, VERDICT_FAIL, "%swrong output: %s", when, detail ? detail : "?");
    } else if (guard_ok == 0) {
        double at = 0;
        record_get_num(c, "guard_at", &at);
        if (at < 0)
            verdict_set(d, VERDICT_FAIL, "%swrote %.0f bytes before the start of the output", when, -at);
        else
            verdict_set(d, VERDICT_FAIL, "%swrote outside the output: byte %.0f, past its end", when, at);
    } else if (problem && *problem) {
        verdict_set(d, VERDICT_FAIL, "%s%s", when, problem);
    } else {
        return 1;
    }
    snprintf(d->detail, sizeof d->detail, "%s", lab->hint_correct);
    return 0;
}


static void decide_check_raw(const lab_info *lab, const lab_check *c, double threshold,
                             const child_outcome *o, const record_list *l, check_decision *d);

void decide_check(const lab_info *lab, const lab_check *c, double threshold,
                  const child_outcome *o, const record_list *l, check_decision *d)
{
    decide_check_raw(lab, c, threshold, o, l, d);
    make_visible(d);
}

static void decide_check_raw(const lab_info *lab, const lab_check *c, double threshold,
                             const child_outcome *o, const record_list *l, check_decision *d)
{
    memset(d, 0, sizeof *d);
    const record *cs = find_record(l, "case", 0);
    if (cs && record_get(cs, "size"))
        snprintf(d->size, sizeof d->size, "%s", record_get(cs, "size"));
    if (decide_process(lab, o, l, d))
        return;
    const record *skipped = find_record(l, "skipped", 0);
    if (skipped) {
        verdict_set(d, VERDICT_SKIP, "skipped: %s",
            record_get(skipped, "reason") ? record_get(skipped, "reason") : "?");
        return;
    }
    /* every `correct` record (the first call, and any re-verified timed call) must pass */
    const record *first = find_record(l, "correct", 0);
    if (!decide_correct(lab, first, d))
        return;
    for (int i = 0; i < l->n; i++)
        if (&l->rec[i] != first && !strcmp(l->rec[i].type, "correct") &&
            !decide_correct(lab, &l->rec[i], d))
            return;
    if (c->kind == CHECK_SPEED)
        decide_speed(lab, threshold, l, d);
    else
        verdict_set(d, VERDICT_OK, "%s", d->size);
}

/* ------------------------------------------------------------------------------------------ */
/* Check names                                                                                 */

/* Replace in buf (NUL-terminated, capacity cap) each whole decimal number equal to `from`
 * with `to`. */
static void replace_number(char *buf, size_t cap, long long from, long long to)
{
    char was[32], now[32];
    snprintf(was, sizeof was, "%lld", from);
    snprintf(now, sizeof now, "%lld", to);
    const size_t wl = strlen(was), nl = strlen(now);
    for (char *p = strstr(buf, was); p; p = strstr(p, was)) {
        const int whole = (p == buf || p[-1] < '0' || p[-1] > '9') && (p[wl] < '0' || p[wl] > '9');
        if (!whole || strlen(buf) - wl + nl + 1 > cap) {
            p += wl;
            continue;
        }
        memmove(p + nl, p + wl, strlen(p + wl) + 1);
        memcpy(p, now, nl);
        p += nl;
    }
}

void check_name_as_run(const lab_check *c, int emulated, char *out, size_t len)
{
    snprintf(out, len, "%s", c->name);
    const long long *run = lab_check_size(c, emulated);
    if (!memcmp(c->size, run, sizeof c->size))
        return;
    char name[256];
    snprintf(name, sizeof name, "%s", c->name);
    for (int i = 0; i < LAB_MAX_DIMS; i++)
        if (run[i] && run[i] != c->size[i])
            replace_number(name, sizeof name, c->size[i], run[i]);
    /* "16 MiB": the bytes of the first dimension, scaled as it was */
    char *mib = strstr(name, " MiB");
    if (mib && c->size[0] > 0) {
        char *num = mib;
        while (num > name && num[-1] >= '0' && num[-1] <= '9')
            num--;
        if (num < mib) {
            const long long was = strtoll(num, NULL, 10);
            const double now = (double)was * (double)run[0] / (double)c->size[0];
            char shown[32];
            snprintf(shown, sizeof shown, now >= 1 ? "%.0f" : "%.2f", now);
            char rest[256];
            snprintf(rest, sizeof rest, "%s", mib);
            snprintf(num, sizeof name - (size_t)(num - name), "%s%s", shown, rest);
        }
    }
    /* the GPU's size: the table name's part before its first ':' (all of it if none) */
    const size_t head = strcspn(c->name, ":");
    snprintf(out, len, "%s (on a GPU: %.*s)", name, (int)head, c->name);
}
