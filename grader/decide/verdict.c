/* verdict.c - TRUSTED, NO GPU: the verdict of each check from its records. See verdict.h. */
#include "verdict.h"
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

static void set(check_decision *d, verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(check_decision *d, verdict v, const char *fmt, ...)
{
    va_list ap;
    d->v = v;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
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
        set(d, VERDICT_FAIL, "out of GPU memory: the reference's process failed with %s of the "
            "GPU's %s free, while yours held %s of it (ending your process gave that back)",
            before, total, held);
    else if (m->needed > 0)
        set(d, VERDICT_FAIL, "out of GPU memory: the grader needed %s for this check and found "
            "%s free, while your process held %s of the GPU's %s (ending it gave that back)",
            bytes_text(m->needed, needed, sizeof needed), before, held, total);
    else
        set(d, VERDICT_FAIL, "out of GPU memory: the grader ran short (%s of the GPU's %s free) "
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
            set(d, VERDICT_ERROR, "could not run: a worker process could not start (%s), and the "
                "reference's could not either%s", msg && *msg ? msg : "it exited",
                shortage_note(mem, have_reclaim, note, sizeof note));
        else
            set(d, VERDICT_ERROR, "could not run: %s (%s), and the reference's process could not "
                "run here either%s", msg && *msg ? msg : name, name,
                shortage_note(mem, have_reclaim, note, sizeof note));
        return;
    }
    if (at_start) {
        double status = -1;
        record_get_num(err, "status", &status);
        set(d, VERDICT_FAIL, "crashed: your process exited (status %.0f) before it answered the "
            "grader's first message, while the reference's process, started the same way, ran "
            "here", status);
        snprintf(d->detail, sizeof d->detail,
                 "Code of yours ran before the grader called your entry point (the constructor "
                 "of a global object, or a static initialiser) and ended the process. Do that "
                 "work inside your entry point instead.");
    } else {
        set(d, VERDICT_FAIL, "crashed: your call returned %s, an error that means no usable "
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
        set(d, VERDICT_ERROR, "could not run: the reference solution failed here (%s)%s",
            msg && *msg ? msg : name, shortage_note(mem, have_reclaim, note, sizeof note));
    } else if (who && !strcmp(who, "student") &&
               record_get_num(err, "reference_ran", &reference_ran) == 0) {
        blame_cannot_run(err, name, msg, reference_ran == 1, mem, have_reclaim, d);
    } else if (who && !strcmp(who, "harness") &&
               (cuda_error_is_environment(name) || o->isolated)) {
        set(d, VERDICT_ERROR, "could not run: %s (%s)%s", msg ? msg : name, name,
            shortage_note(mem, have_reclaim, note, sizeof note));
    } else if (kind && !strcmp(kind, "hang")) {
        set(d, VERDICT_FAIL, "hung: %s (killed)", msg && *msg ? msg : "no answer");
        snprintf(d->detail, sizeof d->detail,
                 "Look for a loop whose exit condition never becomes true, or a block waiting "
                 "on a barrier or flag that other threads never reach.");
    } else if (kind && !strcmp(kind, "crash")) {
        set(d, VERDICT_FAIL, "crashed: %s", msg && *msg ? msg : "the process died");
        snprintf(d->detail, sizeof d->detail,
                 "Your code runs in a process of its own; it ended during the call. The log "
                 "below shows what it printed.");
    } else {
        set(d, VERDICT_FAIL, "crashed: %s in %s", meaning ? meaning : (msg ? msg : name),
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
        set(d, VERDICT_FAIL, "hung: no result after %.0f s (killed)", o->seconds);
        snprintf(d->detail, sizeof d->detail,
                 "Look for a loop whose exit condition never becomes true, or a block waiting "
                 "on a barrier or flag that other threads never reach.");
        return 1;
    }
    if (!o->exited) {
        set(d, VERDICT_FAIL, "crashed: %s (signal %d) in %s", strsignal(o->signal), o->signal,
            lab->name);
        return 1;
    }
    if (o->status == 127) {
        set(d, VERDICT_ERROR, "could not start the lab's harness");
        return 1;
    }
    if (l->malformed_line) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (line %d: %s)",
            l->malformed_line, l->malformed_why);
        return 1;
    }
    if (o->status != 0) {
        /* Isolated, the harness holds no student code: its own stop (status 2, an error it
         * could not grade past) is the grader's or the machine's, never the student's. */
        if (o->status == 2 && o->isolated) {
            set(d, VERDICT_ERROR, "could not run: the grader's harness stopped with an error "
                "(status 2); its log says why");
            return 1;
        }
        set(d, VERDICT_FAIL, "the lab's harness exited with status %d before finishing the check",
            o->status);
        return 1;
    }
    if (!find_record(l, "begin", 0) || !find_record(l, "end", 0)) {
        set(d, VERDICT_FAIL, "the lab's harness stopped without reporting a result (%d records)",
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
        set(d, VERDICT_FAIL, "garbage in the harness's results (no complete `correct` record)");
        return 0;
    }
    const char *problem = record_get(c, "problem");
    const char *detail = record_get(c, "detail");
    const char *impl = record_get(c, "impl");
    const char *when = (impl && !strcmp(impl, "student-timed")) ? "in a timed call: " : "";
    if (input_ok == 0) { /* first: a changed input explains any wrong output */
        double at = 0;
        record_get_num(c, "input_at", &at);
        set(d, VERDICT_FAIL, "%smodified an input (first changed byte %.0f); inputs are read-only",
            when, at);
    } else if (bad > 0 || n <= 0) {
        set(d, VERDICT_FAIL, "%swrong output: %s", when, detail ? detail : "?");
    } else if (guard_ok == 0) {
        double at = 0;
        record_get_num(c, "guard_at", &at);
        if (at < 0)
            set(d, VERDICT_FAIL, "%swrote %.0f bytes before the start of the output", when, -at);
        else
            set(d, VERDICT_FAIL, "%swrote outside the output: byte %.0f, past its end", when, at);
    } else if (problem && *problem) {
        set(d, VERDICT_FAIL, "%s%s", when, problem);
    } else {
        return 1;
    }
    snprintf(d->detail, sizeof d->detail, "%s", lab->hint_correct);
    return 0;
}

/* Median of `key` over the records of `type` (0 if none); *n gets how many there were. */
static double median_field(const record_list *l, const char *type, const char *key, int *n)
{
    double *x = xmalloc((size_t)(l->n + 1) * sizeof *x);
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->rec[i].type, type) && !record_get_num(&l->rec[i], key, &x[k]))
            k++;
    const double m = k ? stats_median(x, (size_t)k) : 0;
    free(x);
    if (n)
        *n = k;
    return m;
}

/* Field `key` of the records of `type` (and `phase`: records without one are phase 1; 0 for
 * any), as a new array (free it); *n gets how many. */
static double *series(const record_list *l, const char *type, int phase, const char *key,
                      int *n)
{
    double *out = xmalloc((size_t)(l->n + 1) * sizeof *out);
    *n = 0;
    for (int i = 0; i < l->n; i++) {
        double p = 1;
        if (strcmp(l->rec[i].type, type))
            continue;
        record_get_num(&l->rec[i], "phase", &p);
        if ((phase == 0 || (int)p == phase) && !record_get_num(&l->rec[i], key, &out[*n]))
            (*n)++;
    }
    return out;
}

/* The reference's slowdown beside the student's process against alone (stats_slowdown on the
 * records); *rounds_b, *rounds_a get how many rounds each had. 0 when either has fewer than 3. */
static double slowdown_between(const record_list *l, const char *beside, int bphase, int aphase,
                               int *rounds_b, int *rounds_a)
{
    int nb, nbn, na, nan_;
    double *b = series(l, beside, bphase, "ref_ms", &nb);
    double *bn = series(l, beside, bphase, "null_ms", &nbn);
    double *a = series(l, "alone", aphase, "ref_ms", &na);
    double *an = series(l, "alone", aphase, "null_ms", &nan_);
    double sd = 0;
    *rounds_b = nb == nbn ? nb : 0;
    *rounds_a = na == nan_ ? na : 0;
    if (*rounds_b >= 3 && *rounds_a >= 3)
        sd = stats_slowdown(b, bn, (size_t)nb, a, an, (size_t)na);
    free(b), free(bn), free(a), free(an);
    return sd;
}

/* The comparisons of the reference beside the student with alone: phase 1 with alone 1 and,
 * where both were measured again, phase 2 with alone 1 and with alone 2 (each time beside
 * then has a time alone on either side of it, so a drift of the machine's speed over time
 * cannot make all three look slow). */
static void reference_slowdowns(const lab_info *lab, const record_list *l, speed_figures *f)
{
    int *n = f->slowdown_rounds, unused;
    f->slowdown_bound = lab_slowdown_noise(lab);
    f->n_slowdowns = 0;
    f->slowdowns[0] = slowdown_between(l, "sample", 0, 1, &n[0], &n[1]);
    if (n[0] < 3 || n[1] < 3)
        return;
    f->n_slowdowns = 1;
    f->slowdowns[1] = slowdown_between(l, "beside", 2, 1, &n[2], &unused);
    f->slowdowns[2] = slowdown_between(l, "beside", 2, 2, &n[2], &n[3]);
    if (n[2] >= 3 && n[3] >= 3)
        f->n_slowdowns = 3;
}

/* What the idle probes saw after the timed units of phase 1 (see LEFT_RUNNING_MS). */
static void left_running(const record_list *l, speed_figures *f)
{
    double *w = xmalloc((size_t)(l->n + 1) * sizeof *w);
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        const record *r = &l->rec[i];
        double left, busy = 0;
        if (strcmp(r->type, "sample"))
            continue;
        if (!record_get_num(r, "stu_left_ms", &left)) {
            record_get_num(r, "stu_busy_before", &busy);
            if (busy == 0) {
                f->left_counted++;
                if (left >= LEFT_RUNNING_MS)
                    w[k++] = left;
            }
        }
        busy = 0;
        if (!record_get_num(r, "ref_left_ms", &left)) {
            record_get_num(r, "ref_busy_before", &busy);
            if (busy == 0) {
                f->left_ref_counted++;
                f->left_ref_units += left >= LEFT_RUNNING_MS;
            }
        }
    }
    f->left_units = k;
    for (int i = 0; i < k; i++)
        f->left_max_ms = fmax(f->left_max_ms, w[i]);
    f->left_median_ms = k ? stats_median(w, (size_t)k) : 0;
    free(w);
}

/* Direct evidence of work left running: it followed at least 3 of the student's units and at
 * least half of those counted, and at most a quarter as many of the reference's units through
 * the same probe (on a machine whose probes come back late for other reasons, both show it). */
static int left_running_is_evidence(const speed_figures *f)
{
    return f->left_units >= 3 && 2 * f->left_units >= f->left_counted &&
           4 * f->left_ref_units <= f->left_units;
}

/* A slowdown of the reference is evidence only when it was measured three times, beside and
 * alone in turn, and every comparison was beyond the lab's noise. */
static int slowdown_is_evidence(const speed_figures *f)
{
    if (f->n_slowdowns < 3)
        return 0;
    for (int i = 0; i < 3; i++)
        if (!(f->slowdowns[i] > f->slowdown_bound))
            return 0;
    return 1;
}
/* 1 if ratio and threshold print the same with `digits` decimals. */
static int ratio_reads_as(double ratio, double threshold, int digits)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", digits, ratio);
    snprintf(b, sizeof b, "%.*f", digits, threshold);
    return strcmp(a, b) == 0;
}

/* A pass mark as an instructor wrote it: 0.75, 0.5, 0.625 (at least two decimals, at most 4). */
static const char *threshold_text(double threshold)
{
    static char t[32];
    for (int d = 2; d <= 4; d++) {
        snprintf(t, sizeof t, "%.*f", d, threshold);
        if (fabs(strtod(t, NULL) - threshold) < 1e-12)
            break;
    }
    return t;
}

/* Measured rates above the hardware's peak by more than this are impossible, not fast. */
#define PHYSICAL_MARGIN 1.08

/* The figures of a speed check from its records: the per-round ratios (less the path's own
 * cost, a null call through the same path), their median and interval, the reference alone
 * and beside, work left running, the rates. 0, or -1 with d set to FAIL when the records are
 * not a complete set (the harness holds no student code: a gap is the harness's failure, and
 * a forged set cannot get past the parser). `sp` is the check's `speed` record. */
static int speed_measure(const lab_info *lab, double threshold, const record_list *l,
                         const record *sp, check_decision *d)
{
    double work = 0, ceiling_ms = 0, calls = 1;
    record_get_num(sp, "work", &work);
    record_get_num(sp, "ceiling_ms", &ceiling_ms);
    record_get_num(sp, "calls_per_unit", &calls);
    calls = calls >= 1 ? calls : 1;
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strcmp(l->rec[i].type, "sample") == 0;
    if (n < 3) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (%d timing samples)", n);
        return -1;
    }
    speed_figures *f = &d->speed;
    f->null_ms = median_field(l, "sample", "null_ms", NULL);
    double *stu = xmalloc(n * sizeof *stu), *ref = xmalloc(n * sizeof *ref);
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->rec[i].type, "sample") != 0)
            continue;
        if (record_get_num(&l->rec[i], "stu_ms", &stu[k]) ||
            record_get_num(&l->rec[i], "ref_ms", &ref[k]) || !(stu[k] > 0) || !(ref[k] > 0)) {
            free(stu);
            free(ref);
            set(d, VERDICT_FAIL, "garbage in the harness's results (bad sample %d)", k + 1);
            return -1;
        }
        /* less the path's own cost (a null call through the same path), never below 1% */
        stu[k] = fmax(stu[k] - f->null_ms, 0.01 * stu[k]);
        ref[k] = fmax(ref[k] - f->null_ms, 0.01 * ref[k]);
        k++;
    }
    d->has_speed = 1;
    f->rounds = n;
    f->calls = (int)calls;
    f->stu_ms = stats_median(stu, n) / calls;
    f->ref_ms = stats_median(ref, n) / calls;
    stats_ratios(ref, stu, n, ref); /* ref[] now holds the per-round ratios */
    f->ratio = stats_median(ref, n);
    stats_median_ci(ref, n, &f->ci_lo, &f->ci_hi);
    free(stu);
    free(ref);
    reference_slowdowns(lab, l, f);
    if (f->n_slowdowns > 0) {
        int na, nan_;
        double *a = series(l, "alone", 1, "ref_ms", &na);
        double *an = series(l, "alone", 1, "null_ms", &nan_);
        f->ref_alone_ms =
            fmax(stats_median(a, (size_t)na) - stats_median(an, (size_t)nan_), 1e-9) / calls;
        free(a), free(an);
        f->slowdown = f->slowdowns[0];
    }
    left_running(l, f);
    f->rate = work / (f->stu_ms * 1e6);
    f->ceiling_rate = ceiling_ms > 0 ? work / (ceiling_ms * 1e6) : 0;
    snprintf(f->unit, sizeof f->unit, "%s", record_get(sp, "unit") ? record_get(sp, "unit") : "");
    snprintf(f->ceiling, sizeof f->ceiling, "%s",
             record_get(sp, "ceiling") ? record_get(sp, "ceiling") : "");
    f->close_call = stats_position(f->ci_lo, f->ci_hi, threshold) == RATIO_STRADDLES;
    return 0;
}

/* The line's figures: the ratio against the pass mark, the rate and its fraction of the
 * ceiling. Enough digits that the ratio never reads as equal to the pass mark (0.7496 next to
 * 0.75 prints 0.7496x, not 0.75x); the pass mark as it was given. */
static void speed_figures_text(const speed_figures *f, double threshold, char *figures,
                               size_t len)
{
    int digits = 2;
    while (digits < 6 && ratio_reads_as(f->ratio, threshold, digits))
        digits++;
    snprintf(figures, len, "%.*fx the reference (needs %sx): %.0f %s", digits, f->ratio,
             threshold_text(threshold), f->rate, f->unit);
    if (f->ceiling_rate > 0) {
        char more[96];
        snprintf(more, sizeof more, ", %.2f of %s", f->rate / f->ceiling_rate, f->ceiling);
        strncat(figures, more, len - strlen(figures) - 1);
    }
}

/* A speed check failed on evidence other than its ratio: a rate above the hardware's peak
 * (`bound`, 0: unknown), the student's work seen running after its call returned, or the
 * reference slower beside the student's code every time it was measured. 1 with d set (the
 * message states the evidence), or 0 when there is none. */
static int speed_evidence(const speed_figures *f, double bound, const char *figures,
                          check_decision *d)
{
    if (bound > 0 && f->rate > PHYSICAL_MARGIN * bound) {
        set(d, VERDICT_FAIL, "faster than the hardware can do this work (%.0f %s, the peak is "
            "%.0f): %s", f->rate, f->unit, bound, figures);
        snprintf(d->detail, sizeof d->detail,
                 "No kernel that does the lab's work in the lab's arithmetic runs above the "
                 "hardware's peak: the result came from somewhere the lab does not allow "
                 "(tensor cores, work skipped or kept from an earlier call).");
        return 1;
    }
    if (left_running_is_evidence(f)) {
        set(d, VERDICT_FAIL, "your work was still running on the GPU after your call returned: "
            "after %d of your %d timed units the GPU stayed busy up to %.1f ms (median %.1f ms), "
            "idle before each; after the reference's, %d of %d: %s", f->left_units,
            f->left_counted, f->left_max_ms, f->left_median_ms, f->left_ref_units,
            f->left_ref_counted, figures);
        snprintf(d->detail, sizeof d->detail,
                 "After every call the grader launches an empty kernel of its own until one "
                 "runs at once; the GPU was idle before each of these calls, so the work was "
                 "yours, and its time was counted as yours. Work that outlives your call is not "
                 "checked and slows what runs next. Finish everything before your entry point "
                 "returns: the grader's worker synchronizes the device after your call, and no "
                 "thread or stream of yours may go on after that.");
        snprintf(d->blame, sizeof d->blame, "left-running");
        return 1;
    }
    if (slowdown_is_evidence(f)) {
        const int *n = f->slowdown_rounds;
        set(d, VERDICT_FAIL, "the reference ran %.0f%% slower beside your code than alone, each "
            "of the 3 times it was measured (%.0f%%, %.0f%%, %.0f%%; %d and %d rounds beside, %d "
            "and %d alone), beyond this lab's noise of %.0f%% (the spread of honest runs, from the "
            "lab's table): %s", 100 * f->slowdowns[0], 100 * f->slowdowns[0],
            100 * f->slowdowns[1], 100 * f->slowdowns[2], n[0], n[2], n[1], n[3],
            100 * f->slowdown_bound, figures);
        snprintf(d->detail, sizeof d->detail,
                 "The reference was timed with your process beside it, then alone with your "
                 "process ended, then both ways again: slower beside yours every time. Something "
                 "of yours slowed it while it was timed: work that ran on after your call, or a "
                 "device-wide setting your process changed (an L2 set-aside for persisting "
                 "accesses, for instance). Finish all your work before your entry point returns "
                 "and leave the device's settings as you found them.");
        snprintf(d->blame, sizeof d->blame, "slowed-reference");
        return 1;
    }
    return 0;
}

/* Notes on a verdict taken from the ratio, never a change of it: a close call (the interval
 * still held the pass mark at the time cap), and a reference slower beside the student's code
 * that was not evidence (once, or not every time it was measured again). */
static void speed_notes(const speed_figures *f, check_decision *d)
{
    if (f->close_call) {
        char note[96];
        snprintf(note, sizeof note, " [close call: 95%% interval %.3f-%.3f]", f->ci_lo, f->ci_hi);
        strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
    }
    if (f->n_slowdowns > 0 && f->slowdowns[0] > f->slowdown_bound) { /* not evidence: a note */
        char note[200];
        if (f->n_slowdowns == 3)
            snprintf(note, sizeof note, " [the reference ran %.0f%% slower beside your code than "
                     "alone once, not every time it was measured again (%.0f%%, %.0f%%): within "
                     "noise, no verdict changed]", 100 * f->slowdowns[0], 100 * f->slowdowns[1],
                     100 * f->slowdowns[2]);
        else
            snprintf(note, sizeof note, " [the reference ran %.0f%% slower beside your code than "
                     "alone, in one measurement: not evidence, no verdict changed]",
                     100 * f->slowdowns[0]);
        strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
    }
}

/* A speed check's verdict: its figures from the records, then evidence other than the ratio,
 * then the ratio against the pass mark, with notes. */
static void decide_speed(const lab_info *lab, double threshold, const record_list *l,
                         check_decision *d)
{
    const record *sp = find_record(l, "speed", 0);
    double work = 0, bound = 0;
    if (!sp || record_get_num(sp, "work", &work)) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (no complete `speed` record)");
        return;
    }
    if (speed_measure(lab, threshold, l, sp, d) != 0)
        return;
    const speed_figures *f = &d->speed;
    char figures[256];
    speed_figures_text(f, threshold, figures, sizeof figures);
    record_get_num(sp, "bound_rate", &bound);
    if (speed_evidence(f, bound, figures, d))
        return;
    if (f->ratio >= threshold) {
        set(d, VERDICT_OK, "%s", figures);
    } else {
        set(d, VERDICT_FAIL, "%s", figures);
        d->below_threshold = 1;
        /* how far off, in the lab's own terms: the rate at the pass mark */
        const double pass_rate = work / (f->ref_ms / threshold * 1e6);
        snprintf(d->detail, sizeof d->detail, "%.0f %s short of the pass mark (%.0f %s). %s",
                 pass_rate - f->rate, f->unit, pass_rate, f->unit, lab->hint_speed);
    }
    speed_notes(f, d);
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
        set(d, VERDICT_SKIP, "skipped: %s",
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
        set(d, VERDICT_OK, "%s", d->size);
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
    if (!emulated || !c->emu_size[0] || !memcmp(c->size, c->emu_size, sizeof c->size))
        return;
    char name[256];
    snprintf(name, sizeof name, "%s", c->name);
    for (int i = 0; i < LAB_MAX_DIMS; i++)
        if (c->emu_size[i] && c->emu_size[i] != c->size[i])
            replace_number(name, sizeof name, c->size[i], c->emu_size[i]);
    /* "16 MiB": the bytes of the first dimension, scaled as it was */
    char *mib = strstr(name, " MiB");
    if (mib && c->size[0] > 0) {
        char *num = mib;
        while (num > name && num[-1] >= '0' && num[-1] <= '9')
            num--;
        if (num < mib) {
            const long long was = strtoll(num, NULL, 10);
            const double now = (double)was * (double)c->emu_size[0] / (double)c->size[0];
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
