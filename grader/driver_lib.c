/* driver_lib.c - child processes, record files and verdicts for the grader. See driver.h. */
#include "driver.h"
#include "stop.h"
#include "../common/stats.h"
#include "../common/text.h"
#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Child processes                                                                             */

int run_child(char *const argv[], const char *log_path, double timeout_s, child_outcome *o)
{
    memset(o, 0, sizeof *o);
    const double start = wall_seconds();
    fflush(stdout);
    fflush(stderr);
    /* Its own group, so that a timeout or a stop kills everything it started; and it dies
     * with this process (a build's flock with it: the lock cannot outlive the run). */
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0) {
        o->status = 127;
        return -1;
    }
    if (pid == 0) {
        const int in = open("/dev/null", O_RDONLY);
        const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in >= 0)
            dup2(in, 0);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execv(argv[0], argv);
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    for (;;) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            stop_forget(pid);
            o->status = 127;
            return -1;
        }
        if (wall_seconds() - start > timeout_s) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            o->timed_out = 1;
            break;
        }
        const struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL); /* anything it left running in its group */
    stop_forget(pid);
    o->seconds = wall_seconds() - start;
    if (!o->timed_out) {
        if (WIFEXITED(status)) {
            o->exited = 1;
            o->status = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            o->signal = WTERMSIG(status);
        }
    }
    return (o->exited && o->status == 127) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Record files                                                                                */

void read_records(const char *path, record_list *l)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, alloc = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = 0;
        else if (l->malformed_line == 0) { /* a last line cut short: the process died mid-write */
            l->malformed_line = lineno;
            snprintf(l->malformed_why, sizeof l->malformed_why, "unterminated last line");
            break;
        }
        record r;
        const char *why = NULL;
        if (len >= RECORD_MAX_LINE || record_parse(line, &r, &why) != 0) {
            if (l->malformed_line == 0) {
                l->malformed_line = lineno;
                snprintf(l->malformed_why, sizeof l->malformed_why, "%s",
                         why ? why : "line too long");
            }
            continue;
        }
        if (l->n == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            l->rec = realloc(l->rec, (size_t)alloc * sizeof *l->rec);
            if (!l->rec)
                fatal("out of memory reading %s", path);
        }
        l->rec[l->n++] = r;
    }
    free(line);
    fclose(f);
}

void free_records(record_list *l)
{
    for (int i = 0; i < l->n; i++)
        record_free(&l->rec[i]);
    free(l->rec);
    memset(l, 0, sizeof *l);
}

const record *find_record(const record_list *l, const char *type, int from)
{
    for (int i = from; i < l->n; i++)
        if (strcmp(l->rec[i].type, type) == 0)
            return &l->rec[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Verdicts                                                                                    */

/* CUDA errors that say the machine cannot run CUDA at all: not the student's fault. */
static int is_environment_error(const char *name)
{
    static const char *const env[] = {
        "cudaErrorNoDevice", "cudaErrorInsufficientDriver", "cudaErrorInitializationError",
        "cudaErrorDevicesUnavailable", "cudaErrorSystemDriverMismatch",
        "cudaErrorCompatNotSupportedOnDevice", "cudaErrorNoKernelImageForDevice",
        "cudaErrorUnsupportedPtxVersion", "cudaErrorSystemNotReady",
    };
    for (size_t i = 0; i < ARRAY_LEN(env); i++)
        if (strcmp(name, env[i]) == 0)
            return 1;
    return 0;
}

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

/* A decision's message and detail are shown as they are (terminal, report.txt, results.json,
 * the batch's exports), and parts of them come from the student's process: the problem its
 * worker reported, the CUDA error name it replied with. Rendered visible here, once, so that
 * no reader of either meets a control character (common/text.h). */
static void make_visible(check_decision *d)
{
    char shown[sizeof d->detail];
    text_visible(shown, sizeof d->message, d->message, 0);
    memcpy(d->message, shown, sizeof d->message);
    text_visible(shown, sizeof d->detail, d->detail, 0);
    memcpy(d->detail, shown, sizeof d->detail);
}

static int decide_process_raw(const lab_info *lab, const child_outcome *o, const record_list *l,
                              check_decision *d);

int decide_process(const lab_info *lab, const child_outcome *o, const record_list *l,
                   check_decision *d)
{
    const int decided = decide_process_raw(lab, o, l, d);
    if (decided)
        make_visible(d);
    return decided;
}

static int decide_process_raw(const lab_info *lab, const child_outcome *o, const record_list *l,
                              check_decision *d)
{
    const record *err = find_record(l, "error", 0);
    if (err) {
        const char *name = record_get(err, "name");
        const char *where = record_get(err, "where");
        const char *call = record_get(err, "call");
        const char *msg = record_get(err, "message");
        const char *who = record_get(err, "who");
        const char *kind = record_get(err, "kind");
        const record *iso = find_record(l, "isolation", 0);
        double isolated = 0;
        if (iso)
            record_get_num(iso, "tamper_proof", &isolated);
        name = name ? name : "unknown";
        const char *meaning = cuda_error_meaning(name);
        if (kind && !strcmp(kind, "isolation")) {
            set(d, VERDICT_ERROR, "not run: student code cannot be isolated here (%s)",
                msg && *msg ? msg : "no sandbox");
        } else if (who && !strcmp(who, "reference")) {
            set(d, VERDICT_ERROR, "could not run: the reference solution failed here (%s)",
                msg && *msg ? msg : name);
        } else if (is_environment_error(name) ||
                   (who && !strcmp(who, "harness") && isolated)) {
            set(d, VERDICT_ERROR, "could not run: %s (%s)", msg ? msg : name, name);
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
        set(d, VERDICT_ERROR, "could not start the runner");
        return 1;
    }
    if (l->malformed_line) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (line %d: %s)",
            l->malformed_line, l->malformed_why);
        return 1;
    }
    if (o->status != 0) {
        set(d, VERDICT_FAIL, "the runner exited with status %d before finishing", o->status);
        return 1;
    }
    if (!find_record(l, "begin", 0) || !find_record(l, "end", 0)) {
        set(d, VERDICT_FAIL, "the runner stopped without reporting a result (%d records)",
            l->n);
        return 1;
    }
    return 0;
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

/* The reference may not run slower beside the student's process than alone by more than this
 * (a student's process that keeps the GPU busy between its calls slows the reference). */
#define SLOWDOWN_LIMIT 0.05
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

static void decide_speed(const lab_info *lab, double threshold, const record_list *l,
                         check_decision *d)
{
    const record *sp = find_record(l, "speed", 0);
    double work = 0, ceiling_ms = 0, calls = 1;
    if (!sp || record_get_num(sp, "work", &work)) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (no complete `speed` record)");
        return;
    }
    record_get_num(sp, "ceiling_ms", &ceiling_ms);
    record_get_num(sp, "calls_per_unit", &calls);
    calls = calls >= 1 ? calls : 1;
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strcmp(l->rec[i].type, "sample") == 0;
    if (n < 3) {
        set(d, VERDICT_FAIL, "garbage in the harness's results (%d timing samples)", n);
        return;
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
            return;
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
    int n_alone = 0;
    const double alone = median_field(l, "alone", "ref_ms", &n_alone);
    if (n_alone >= 3) {
        f->ref_alone_ms = fmax(alone - median_field(l, "alone", "null_ms", NULL), 1e-9) / calls;
        f->slowdown = f->ref_ms / f->ref_alone_ms - 1;
    }
    f->rate = work / (f->stu_ms * 1e6);
    f->ceiling_rate = ceiling_ms > 0 ? work / (ceiling_ms * 1e6) : 0;
    snprintf(f->unit, sizeof f->unit, "%s", record_get(sp, "unit") ? record_get(sp, "unit") : "");
    snprintf(f->ceiling, sizeof f->ceiling, "%s",
             record_get(sp, "ceiling") ? record_get(sp, "ceiling") : "");
    f->close_call = stats_position(f->ci_lo, f->ci_hi, threshold) == RATIO_STRADDLES;

    /* Enough digits that the ratio never reads as equal to the pass mark (0.7496 next to
     * 0.75 prints 0.7496x, not 0.75x); the pass mark as it was given. */
    int digits = 2;
    while (digits < 6 && ratio_reads_as(f->ratio, threshold, digits))
        digits++;
    char figures[256];
    snprintf(figures, sizeof figures, "%.*fx the reference (needs %sx): %.0f %s", digits,
             f->ratio, threshold_text(threshold), f->rate, f->unit);
    if (f->ceiling_rate > 0) {
        char more[96];
        snprintf(more, sizeof more, ", %.2f of %s", f->rate / f->ceiling_rate, f->ceiling);
        strncat(figures, more, sizeof figures - strlen(figures) - 1);
    }
    double bound = 0;
    record_get_num(sp, "bound_rate", &bound);
    if (bound > 0 && f->rate > PHYSICAL_MARGIN * bound) {
        set(d, VERDICT_FAIL, "faster than the hardware can do this work (%.0f %s, the peak is "
            "%.0f): %s", f->rate, f->unit, bound, figures);
        snprintf(d->detail, sizeof d->detail,
                 "No kernel that does the lab's work in the lab's arithmetic runs above the "
                 "hardware's peak: the result came from somewhere the lab does not allow "
                 "(tensor cores, work skipped or kept from an earlier call).");
        return;
    }
    if (f->slowdown > SLOWDOWN_LIMIT) {
        set(d, VERDICT_FAIL, "the reference ran %.0f%% slower beside your code than alone: %s",
            100 * f->slowdown, figures);
        snprintf(d->detail, sizeof d->detail,
                 "Something of yours kept the GPU busy while the reference was timed (work left "
                 "running after your call returned, or a thread). Finish all your work before "
                 "your entry point returns.");
        return;
    }
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
    if (f->close_call) {
        char note[96];
        snprintf(note, sizeof note, " [close call: 95%% interval %.3f-%.3f]", f->ci_lo, f->ci_hi);
        strncat(d->message, note, sizeof d->message - strlen(d->message) - 1);
    }
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

const lab_info *find_lab(const char *key)
{
    for (int i = 0; i < n_all_labs; i++) {
        const lab_info *lab = all_labs[i];
        if (!strcmp(key, lab->name) || !strcmp(key, lab->number) ||
            (key[0] && atoi(key) > 0 && atoi(key) == atoi(lab->number) &&
             strspn(key, "0123456789") == strlen(key)))
            return lab;
        /* "01-coalescing", the directory name, works too */
        char dir[96];
        snprintf(dir, sizeof dir, "%s-%s", lab->number, lab->name);
        if (!strcmp(key, dir))
            return lab;
    }
    return NULL;
}
