/* driver.c - TRUSTED, NO GPU: `make grade` and `make bench`, the grader's main program.
 *
 *   grade-driver --labdir DIR --student-dir DIR --worker EXE --mode gpu|emu [--lab NAME,...]
 *                [--seed S] [--student DIR] [--isolation on|off] [--require-isolation]
 *                [--built DIR] [--json FILE] [--logs DIR] [--hide DIR ...]
 *                [--where-budget S [--where-labdir DIR --where-student-dir DIR
 *                --where-worker EXE]] [--fault-rerun gpu|always|off]
 *                [--paths submission|as-given]
 *                [--bench --variants 'LAB:NAME=SO ...' ...]
 *   grade-driver --list-labs [--lab NAME,...]
 *   grade-driver --status-of RESULTS.json
 *
 * It builds nothing and runs neither make nor a shell: make builds every selected lab first
 * (grader/make/grade.mk, which leaves a status per lab in --built DIR), so no student code runs
 * before all building and vetting is done. Then, per lab, one harness
 * process (grader/harness/harness.cu) runs the rows of the lab's table one by one, each with a time
 * limit, and this program decides each verdict from the records the harness wrote. The
 * harness holds no student code: that runs in sandboxed workers the harness starts. A build
 * failure, crash or hang costs that check's points and grading goes on. Whether the run was
 * tamper-proof, the sandbox and the GPU it names come from what this program asked for and
 * from each harness's greeting, its first two lines, sent before any student code can be in
 * its process (decide/verdict.h), never from a check's records. Prints one line per check and
 * `Score: N/M` (report/terminal.h); writes everything needed to regrade to the JSON file
 * (report/results_json.h). Exit: 0 full marks, 1 a point was lost, 2 a check could not run.
 *
 * With --where-budget (make grade), a speed check short of its mark (or one the emulator could
 * not time) gets a WHERE line: the costliest place in the student's file as the CPU emulator
 * counts it, as make explain does. The lab's emulated harness (--where-labdir; under the
 * emulator, --labdir's) runs one call of the student's and one of the reference's, each in a
 * sandboxed worker as grading runs them, and hands back the counts as data; the workbook's
 * explain.awk, run by execv, renders them as one line. make built all of it before this program
 * started. It is help, not grading: no verdict depends on it, and the run's hints share
 * --where-budget seconds.
 *
 * On a GPU with that emulated build, a check whose student code faulted (a GPU names only the
 * error) runs once more on it, alone, in the same sandbox, for a report at the student's line
 * (check_fault_rerun, grader/feedback/fault_rerun.h): help too, never a verdict. */
#include "driver.h"
#include "../../common/rng.h"
#include "harnesses.h"
#include "schedule.h"
#include "costs.h"
#include "gpu_neighbours.h"
#include "../feedback/fault_rerun.h"
#include "../feedback/where.h"
#include "../plan/config.h"
#include "../decide/verdict.h"
#include "../plan/lab_select.h"
#include "../plan/started.h"
#include "../sandbox/sandbox.h"
#include "../decide/score.h"
#include "../feedback/estimate.h"
#include "../wire/stop.h"
#include "../wire/child.h"
#include "../report/report.h"
#include "../report/results_json.h"
#include "../report/shown.h"
#include "../report/terminal.h"
#include "../../common/json.h"
#include "../../common/json_read.h"
#include "../../common/text.h"
#include "../../common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Grading                                                                                     */

static volatile sig_atomic_t stop_signal;  /* (grading_stopped, driver.h) */
static int refused_unisolated;             /* stopped: isolation was required and impossible */
int grading_stopped(void) { return stop_signal != 0; }

/* The run's WHERE lines and faults' reruns: the emulated build, the report folder, the budget
 * (../feedback/where.h), from the command line (main). */
static where_setup where_cfg;
static where_ahead ahead; /* the later labs' counts, started ahead (where.h) */

/* The longest the faults' runs on the CPU emulator of one lab may take, all told, seconds,
 * and how many there may be (check_fault_rerun): each fault runs once more for its own line,
 * one bug's checks folding into one report on the terminal */
#define FAULT_RERUN_S 120
#define FAULT_RERUNS 4

/* The programs on the GPU as the last lab ended, for the next lab's start (lab_open) */
static char neighbours_at_close[2048];
static int neighbours_at_close_valid;

/* The run's harness, which serves its labs one after the other (harnesses.h), and the
 * greeting of the harness process last started: a harness stopped mid-lab (a time limit) is
 * replaced at the next check by a fresh one, which greets again. */
static harness_proc the_harness;
static greeting the_greeting;

/* The run's label from a harness's greeting (greeting_take): a greeting can lower it, and
 * only one from before any student code was in its process is ever read. */
static void label_run(const greeting *g, totals *t)
{
    if (!t->tamper_proof)
        return; /* lowered once: the first reason stays */
    t->tamper_proof = g->isolated;
    snprintf(t->isolation, sizeof t->isolation, "%s", g->detail);
    snprintf(t->sandbox, sizeof t->sandbox, "%s", g->sandbox);
}

/* ------------------------------------------------------------------------------------------ */
/* Grading a lab, check by check                                                               */

/* One lab's grading: what its build left, and what the checks so far leave for the next. */
typedef struct lab_run {
    const lab_info *lab;
    double start;             /* when its grading began */
    score_rules rules;
    double timeout;           /* each check's limit, seconds */
    char expected[1024];      /* the student's file (STUDENT is a tree like labs/, or one file) */
    char refusal[400];        /* the emulator's refusal (of the build, or met at run time) */
    build_report b;           /* what its build left, as the report says it */
    int built, grader_unbuilt, missing;
    int env_error;            /* set once a check could not run for a reason outside the code */
    int refused_at_run;       /* the emulator refused a feature it met at run time */
    harness_proc *h;          /* the run's harness (the_harness), which serves this lab */
    greeting *g;              /* its greeting (the_greeting) */
    check_outcome *outcomes;  /* per check so far */
    check_score *scores;
    lab_score score;
    int where_done;           /* the lab's WHERE hint was asked for */
    lab_close_times close;    /* its seconds by part (results.json: where a student's time goes) */
    where_job where_early;    /* the count started beside the checks (where_start) */
    int fault_reruns;         /* checks run once more so far (at most FAULT_RERUNS a lab) */
    double fault_rerun_s;     /* and their seconds (at most FAULT_RERUN_S a lab, all told) */
} lab_run;

/* The lab's rules, its heading, what its build left (a refusal read from its log: under
 * emulation alone), into r; results.json's entry opened up to its checks. */
static void lab_open(const options *o, const config *cfg, const lab_info *lab, lab_build build,
                     const char *build_log, json_writer *w, lab_run *r, char *neighbours,
                     size_t len)
{
    memset(r, 0, sizeof *r);
    r->lab = lab;
    r->start = wall_seconds();
    r->h = &the_harness;
    r->g = &the_greeting;
    r->rules = score_rules_for(cfg, lab);
    const char *tmo_src;
    r->timeout = config_get(cfg, lab->name, "timeout", lab->timeout_s, &tmo_src);
    if (!strcmp(o->mode, "emu") && !strcmp(tmo_src, "default"))
        r->timeout *= 5; /* the emulator with sanitizers is far slower than a GPU */
    lab_student_file(o->student, lab, r->expected, sizeof r->expected);
    terminal_lab_begin(lab, r->expected);
    /* Other programs on the GPU (a desktop, a browser, someone's job): named, never blamed.
     * The reading the lab before ended with serves as this one's start (taken a moment ago,
     * with nothing run since: one call of nvidia-smi between two labs, not two). */
    neighbours[0] = 0;
    if (neighbours_at_close_valid)
        snprintf(neighbours, len, "%s", neighbours_at_close);
    else if (!strcmp(o->mode, "gpu"))
        gpu_neighbours(neighbours, len, NULL);
    neighbours_at_close_valid = 0;
    /* A refusal counts under emulation alone (on a GPU nothing refuses: such a status, or one
     * with no refusal in its log, is the build's failure). */
    if (build == LAB_REFUSED && !strcmp(o->mode, "emu"))
        read_refusal(build_log, r->refusal, sizeof r->refusal);
    if (build == LAB_REFUSED && !r->refusal[0])
        build = LAB_STUDENT_FAILED;
    r->built = build == LAB_BUILT;
    /* Only the student's own build blames the student; the grader's pieces failing is an
     * ERROR of this machine's set-up. */
    r->grader_unbuilt = build == LAB_GRADER_FAILED || build == LAB_NOT_BUILT ||
                        build == LAB_STEPS_FAILED;
    /* Missing: nothing at all where the file was expected. A link to nothing, or a file that
     * cannot be read, is there: the build's log says what it is (the compile sandbox's words). */
    struct stat there;
    r->missing = build == LAB_STUDENT_FAILED && lstat(r->expected, &there) != 0;
    /* A lab not started (its file missing, or the skeleton with comments and white space
     * aside) earns nothing, whatever the rules give its checks (grader/plan/started.h) */
    const started_state started = lab_started(lab, r->expected, STARTED_DIGESTS);
    r->rules.not_started = started != STARTED_WORK;
    r->b = (build_report){build, r->missing, r->refusal, build_log, r->expected, started,
                          build == LAB_STUDENT_FAILED ? started_other_lab(lab, r->expected) : NULL,
                          lab};
    results_lab_begin(w, lab, &r->rules, r->timeout, &r->b);
    terminal_build(&r->b);
    r->outcomes = xcalloc((size_t)lab->n_checks, sizeof *r->outcomes);
    r->scores = xcalloc((size_t)lab->n_checks, sizeof *r->scores);
    score_lab(lab, &r->rules, NULL, 0, NULL, &r->score);
}

/* Under emulation, a feature of valid CUDA that the emulator meets only at run time: it printed
 * its refusal line (the one emu-nvcc prints for a build's refusal) and ended the student's
 * process. As for a build's refusal, no verdict and nothing earned in the whole lab; the text
 * came from the student's process (shown as data), so a forged one only turns a grade into
 * "could not run". */
static void check_refused_at_run(const options *o, lab_run *r, const record_list *l,
                                 const char *log_path, check_decision *d)
{
    const record *crash = find_record(l, "error", 0);
    if (!strcmp(o->mode, "emu") && d->v == VERDICT_FAIL && crash &&
        record_get(crash, "who") && !strcmp(record_get(crash, "who"), "student") &&
        record_get(crash, "kind") && !strcmp(record_get(crash, "kind"), "crash")) {
        read_refusal(log_path, r->refusal, sizeof r->refusal);
        if (r->refusal[0]) {
            memset(d, 0, sizeof *d);
            d->v = VERDICT_ERROR;
            snprintf(d->message, sizeof d->message, "cannot be checked on the CPU emulator: "
                     "%s; a GPU grades it", r->refusal);
            r->refused_at_run = 1;
        }
    }
}

/* Check i run by the lab's harness and decided, into d, l, out and log_path. */
static void check_run(const options *o, lab_run *r, int i, check_decision *d, record_list *l,
                      child_outcome *out, char *log_path, size_t len, totals *t)
{
    const lab_info *lab = r->lab;
    const lab_check *c = &lab->checks[i];
    char results[512];
    /* The WHERE count runs beside the checks, from the second on while all so far passed (see
     * where_hint) */
    if (i > 0 && score_speed_counts(lab, r->outcomes, i) &&
        where_cfg.on && !r->where_done && !r->where_early.pid && where_left(&where_cfg) >= 1 &&
        r->g->heard)
        where_start(&where_cfg, lab, &r->g->device, 1, &r->where_early);
    if (r->g->heard)
        where_ahead_go(&where_cfg, &ahead, lab, &r->where_early,
                       !r->where_done && score_speed_counts(lab, r->outcomes, i), &r->g->device);
    report_check_file(results, sizeof results, o->logs, lab->name, i, REPORT_CHECK_RECORDS);
    report_check_file(log_path, len, o->logs, lab->name, i, REPORT_CHECK_LOG);
    unlink(results);
    unlink(log_path);
    int link = -1, paused = 0;
    if (c->kind == CHECK_SPEED) {
        link = host_link_lock(o, lab);
        /* A lab timed across the host link (lab 05's copies) shares host memory with the WHERE
         * count running beside it on the CPUs (the emulator moves the same arrays): paused
         * while the check times, so the reference's rounds beside the student's process and
         * alone see the same host (a count that ran through some rounds and not others made
         * the reference look slowed by the student's process) */
        if (lab->host_link && r->where_early.pid > 0 && !strcmp(o->mode, "gpu"))
            paused = proc_tree_signal(r->where_early.pid, SIGSTOP) > 0;
    }
    harness_check(o, lab, r->h, r->g, i, r->rules.threshold, r->timeout, results, log_path, out);
    if (paused)
        proc_tree_signal(r->where_early.pid, SIGCONT);
    if (link >= 0)
        close(link); /* (the lock goes with it) */
    read_records(results, l);
    decide_check(lab, c, r->rules.threshold, out, l, d);
    check_refused_at_run(o, r, l, log_path, d);
    if (r->g->heard)
        label_run(r->g, t);
    if (r->g->heard && !r->g->isolated && o->require_isolation && !stop_signal) {
        terminal_unisolated(r->g->detail);
        memset(d, 0, sizeof *d);
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "not run: student code cannot be isolated "
                 "here (%s)", r->g->detail);
        stop_signal = SIGTERM; /* no further check runs */
        refused_unisolated = 1;
    }
}

/* Check i decided: not run (and why), or run (check_run). */
static void check_decide(const options *o, lab_run *r, int i, check_decision *d, record_list *l,
                         child_outcome *out, char *log_path, size_t len, totals *t)
{
    const lab_check *c = &r->lab->checks[i];
    if (stop_signal) {
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "not run: %s",
                 refused_unisolated ? "student code cannot be isolated here"
                                    : "grading was interrupted");
    } else if (r->grader_unbuilt) {
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "not run: the grader's pieces of this lab did "
                 "not build (see above)");
    } else if (r->refusal[0]) { /* valid CUDA the emulator cannot run: no verdict, no points */
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "cannot be checked on the CPU emulator: %s; "
                 "a GPU grades it", r->refusal);
    } else if (!r->built) {
        d->v = VERDICT_FAIL;
        snprintf(d->message, sizeof d->message, "not run: %s",
                 r->missing ? "the file was not found" : "the build failed");
    } else if (r->env_error) { /* the machine cannot run this lab: say it once */
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "not run (same reason as above)");
    } else if (c->kind == CHECK_SPEED && !score_speed_counts(r->lab, r->outcomes, i)) {
        d->v = VERDICT_SKIP;
        snprintf(d->message, sizeof d->message,
                 "skipped: speed counts only once every correctness check passes");
    } else {
        check_run(o, r, i, d, l, out, log_path, len, t);
    }
}

/* The place in the student's file that loses the time, counted by the emulator: under a speed
 * check short of the pass mark, or one the emulator could not time once every correctness check
 * passed (once per lab); "" for any other check. */
static void check_where(const options *o, lab_run *r, int i, const check_decision *d,
                        char *where, size_t len)
{
    where[0] = 0;
    if (r->lab->checks[i].kind == CHECK_SPEED && !r->where_done && !stop_signal &&
        ((d->v == VERDICT_FAIL && d->below_threshold) ||
         (d->v == VERDICT_SKIP && !strcmp(o->mode, "emu") &&
          score_speed_counts(r->lab, r->outcomes, i)))) {
        const double waited = wall_seconds();
        where_hint(&where_cfg, r->lab, &r->g->device, &r->where_early, where, len);
        r->close.where_s = wall_seconds() - waited;
        r->where_done = 1;
    }
}

/* A check in which the student's code faulted (fault_rerun_kind) on a GPU, which says only
 * which error ended the call, or gave wrong values (which a read out of bounds or a race the GPU
 * ran through may explain): the check run once more on the CPU emulator's build, alone, in
 * the sandbox (grader/feedback/fault_rerun.h), for its report at the student's line, block and
 * thread, which the check's report shows (terminal_check). Each such check of a lab (the same
 * bug's reports fold there), up to FAULT_RERUNS and FAULT_RERUN_S, then a note that says none
 * ran. Help, never a verdict. Into f ("" fields: nothing to say). */
static void check_fault_rerun(const options *o, lab_run *r, int i, const check_decision *d,
                              const record_list *l, fault_report *f)
{
    memset(f, 0, sizeof *f);
    const char *kind = o->fault_rerun && d->v == VERDICT_FAIL ? fault_rerun_kind(l) : NULL;
    if (!kind || (o->fault_rerun == 1 && strcmp(o->mode, "gpu")) || stop_signal)
        return;
    const int wrong = !strcmp(kind, FAULT_RERUN_WRONG);
    if (wrong && strcmp(o->mode, "gpu") && o->fault_rerun != 2)
        return; /* (under the emulator the check itself was that run; `always`: the tests) */
    /* Each fault runs once more, for its own report (two bugs of a lab are two reports; the
     * terminal folds a report the same as an earlier one), while the lab's time for that lasts */
    const double left = FAULT_RERUN_S - r->fault_rerun_s;
    if (r->fault_reruns >= FAULT_RERUNS || left < 10) {
        snprintf(f->note, sizeof f->note, "(not run once more on the CPU emulator: the lab's "
                 "%d reruns are spent, and this check's bug may be another than those above; "
                 "make sanitize LAB=%s on your own GPU names its line)", FAULT_RERUNS,
                 r->lab->number);
        return;
    }
    r->fault_reruns++;
    f->wrong_values = wrong;
    static fault_rerun run; /* (large: its paths) */
    memset(&run, 0, sizeof run);
    char harness[1024], reference[1024], student[1024], why[300];
    snprintf(harness, sizeof harness, "%s/%s/harness", o->where_labdir, r->lab->name);
    snprintf(reference, sizeof reference, "%s/%s/reference.so", o->where_labdir, r->lab->name);
    snprintf(student, sizeof student, "%s/%s/student.so", o->where_student_objs, r->lab->name);
    run.harness = harness, run.worker = o->where_worker, run.student = student;
    run.reference = reference, run.logs = o->logs, run.lab = r->lab->name, run.check = i;
    run.seed = o->seed;
    run.timeout_s = r->timeout * 5 < left ? r->timeout * 5 : left;
    if (fault_rerun_go(&run, &where_cfg.emu, &r->g->device, &f->seconds, &f->timed_out, why,
                       sizeof why) != 0) {
        snprintf(f->note, sizeof f->note, "where: not found on the CPU emulator: %s", why);
        return;
    }
    r->fault_rerun_s += f->seconds;
    f->right_there = wrong && !f->timed_out && fault_rerun_values_right(run.records);
    snprintf(f->log, sizeof f->log, "%s", run.log);
}

/* Check i: decided, scored, and reported (its line, its entry in results.json). */
static void grade_check(const options *o, lab_run *r, int i, json_writer *w, totals *t)
{
    const lab_check *c = &r->lab->checks[i];
    check_decision d;
    memset(&d, 0, sizeof d);
    record_list l;
    memset(&l, 0, sizeof l);
    child_outcome out;
    memset(&out, 0, sizeof out);
    char log_path[512] = "";
    char run_name[256], name[400]; /* as run: under the emulator, the emulated size */
    check_name_as_run(c, !strcmp(o->mode, "emu"), run_name, sizeof run_name);
    snprintf(name, sizeof name, "%s", run_name);
    check_decide(o, r, i, &d, &l, &out, log_path, sizeof log_path, t);
    if (d.v == VERDICT_ERROR)
        r->env_error = 1;
    static fault_report fault; /* (large: its paths) */
    check_fault_rerun(o, r, i, &d, &l, &fault);
    char where[768], estimate[700] = "";
    check_where(o, r, i, &d, where, sizeof where);
    /* with no GPU: the speed estimated on a named GPU from the WHERE count (estimate.h), or
     * why there is none (a lab that gets none says so without the count's file) */
    if (c->kind == CHECK_SPEED && d.v == VERDICT_SKIP && !strcmp(o->mode, "emu") &&
        where_cfg.on && r->where_done)
        estimate_line(r->where_early.w.estimate, WHERE_TOOLS "/estimate-limits.tsv", i,
                      r->rules.threshold, r->lab->number, estimate, sizeof estimate);
    r->outcomes[i] = (check_outcome){d.v, d.below_threshold, d.speed.ratio};
    score_lab(r->lab, &r->rules, r->outcomes, i + 1, r->scores, &r->score);
    const check_score *s = &r->scores[i];
    d.v = s->v;
    if (s->partial) {
        char more[160];
        snprintf(more, sizeof more, " [partial credit: %d of %d points, for %.2fx or more]",
                 s->earned, s->points, r->rules.partial_threshold);
        strncat(d.message, more, sizeof d.message - strlen(d.message) - 1);
    }
    if (c->kind == CHECK_HIDDEN && d.size[0]) /* show what the seed drew */
        snprintf(name, sizeof name, "%s: %s", run_name, d.size);
    static fault_check faults; /* its fault, read once (grader/fault/fault.h); large */
    char rel[256];
    lab_student_rel(r->lab, rel, sizeof rel);
    fault_of_check(&faults, log_path, s->v == VERDICT_FAIL && (out.timed_out || !out.exited ||
                   out.status != 0 || find_record(&l, "error", 0)),
                   s->v == VERDICT_FAIL ? fault.log : "", rel, strcmp(o->mode, "emu") != 0);
    const check_report rep = {r->lab, c, run_name, name, &d, s, &out, &l, log_path, where,
                              &r->g->device, r->rules.threshold, estimate, &fault, &faults};
    terminal_check(&rep);
    results_check(w, &rep);
    free_records(&l);
}

/* The lab's end: the lab ended in its harness (harness_lab_end) and its WHERE count stopped,
 * its score reported and added to t. */
static void lab_close(const options *o, lab_run *r, char *neighbours, size_t len, json_writer *w,
                      totals *t)
{
    where_drop(&r->where_early); /* the lab's speed passed, or a correctness check failed: its
                                  * count is not needed */
    double at = wall_seconds();
    harness_lab_end(o, r->h, r->g);
    r->close.stop_s = wall_seconds() - at;
    r->close.start_s = r->h->lab_start_s;
    if (r->refused_at_run) /* as a build's refusal: the lab earns nothing under emulation */
        r->score.earned = 0;
    const char *refused = r->refused_at_run ? r->refusal : "";
    int others = 0;
    if (!strcmp(o->mode, "gpu")) {
        at = wall_seconds();
        gpu_neighbours(neighbours_at_close, sizeof neighbours_at_close, NULL);
        r->close.neighbours_s = wall_seconds() - at;
        neighbours_at_close_valid = 1;
        others = gpu_neighbours_merge(neighbours, len, neighbours_at_close) > 0;
    }
    terminal_lab_end(r->lab, refused, others ? neighbours : NULL, &r->score, &r->b,
                     !strcmp(o->mode, "emu"));
    r->close.seconds = wall_seconds() - r->start;
    results_lab_end(w, refused, neighbours, &r->score, &r->close, &r->b);
    t->earned += r->score.earned;
    t->correct_ok += r->score.correct_ok;
    t->correct_n += r->score.correct_n;
    t->correct_earned += r->score.correct_earned;
    t->correct_possible += r->score.correct_possible;
    t->not_started += r->score.not_started;
    t->possible += r->score.possible;
    t->failed += r->score.failed;
    t->not_run += r->score.not_run;
    if ((r->score.failed || r->score.not_started) && !t->first_short) {
        t->first_short = r->lab;
        t->first_short_why = r->score.not_started                          ? SHORT_NOT_STARTED
                             : r->score.correct_ok < r->score.correct_n ? SHORT_CORRECT
                                                                        : SHORT_SPEED;
    }
    free(r->outcomes);
    free(r->scores);
}

/* Lab `lab` graded, by the run's harness. */
static void grade_lab(const options *o, const config *cfg, const lab_info *lab, lab_build build,
                      const char *build_log, json_writer *w, totals *t)
{
    static lab_run r; /* (large: its WHERE count's paths) */
    char neighbours[2048];
    lab_open(o, cfg, lab, build, build_log, w, &r, neighbours, sizeof neighbours);
    where_ahead_take(&ahead, lab, &r.where_early);
    the_harness.lab_start_s = 0;
    for (int i = 0; i < lab->n_checks; i++)
        grade_check(o, &r, i, w, t);
    lab_close(o, &r, neighbours, sizeof neighbours, w, t);
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                        */

static void usage(void)
{
    fprintf(stderr, "usage: grade-driver --labdir DIR --student-dir DIR --worker EXE --mode gpu|emu\n"
                    "                    [--lab NAME,...] [--seed S] [--student DIR] [--isolation on|off]\n"
                    "                    [--require-isolation] [--built DIR] [--json FILE] [--logs DIR]\n"
                    "                    [--hide DIR ...] [--where-budget S [--where-labdir DIR\n"
                    "                    --where-student-dir DIR --where-worker EXE]]\n"
                    "                    [--fault-rerun gpu|always|off] [--paths submission|as-given]\n"
                    "                    [--bench --variants 'LAB:NAME=SO ...']\n"
                    "       grade-driver --list-labs [--lab NAME,...]\n"
                    "       grade-driver --status-of RESULTS.json\n"
                    "Run it through `make grade` or `make bench`.\n");
    exit(2);
}

/* The command line (usage). Longer than most functions here: one table and one case per
 * option, each a line, reads best in one place. */
static options parse_options(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.mode = "gpu";
    o.student = "labs";
    o.json = "build/grade/results.json";
    o.logs = "build/grade";
    o.isolation = "on";
    int have_seed = 0;
    const char *fault_rerun = "gpu";
    static const struct option longs[] = {
        {"labdir", required_argument, NULL, 'L'}, {"student-dir", required_argument, NULL, 'S'},
        {"worker", required_argument, NULL, 'W'}, {"mode", required_argument, NULL, 'm'},
        {"lab", required_argument, NULL, 'l'},    {"student", required_argument, NULL, 's'},
        {"built", required_argument, NULL, 'b'},  {"json", required_argument, NULL, 'j'},
        {"logs", required_argument, NULL, 'g'},   {"seed", required_argument, NULL, 'e'},
        {"isolation", required_argument, NULL, 'i'}, {"bench", no_argument, NULL, 'B'},
        {"variants", required_argument, NULL, 'v'},
        {"require-isolation", no_argument, NULL, 'R'}, {"list-labs", no_argument, NULL, 'X'},
        {"status-of", required_argument, NULL, 'Z'},
        {"hide", required_argument, NULL, 'H'},
        {"where-budget", required_argument, NULL, 'x'},
        {"where-labdir", required_argument, NULL, 'y'}, {"where-student-dir", required_argument, NULL, 'z'},
        {"where-worker", required_argument, NULL, 'k'},
        {"paths", required_argument, NULL, 'P'}, {"fault-rerun", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (ch) {
        case 'L': o.labdir = optarg; break;
        case 'S': o.student_objs = optarg; break;
        case 'W': o.worker = optarg; break;
        case 'm': o.mode = optarg; break;
        case 'l': o.labs = *optarg ? optarg : NULL; break;
        case 's': o.student = optarg; break;
        case 'b': o.built = *optarg ? optarg : NULL; break;
        case 'j': o.json = optarg; break;
        case 'g': o.logs = optarg; break;
        case 'x': o.where = 1, o.where_budget = atof(optarg); break;
        case 'y': o.where_labdir = optarg; break;
        case 'z': o.where_student_objs = optarg; break;
        case 'k': o.where_worker = optarg; break;
        case 'f':
            if (strcmp(optarg, "gpu") && strcmp(optarg, "always") && strcmp(optarg, "off"))
                fatal("--fault-rerun takes gpu, always or off, not %s", optarg);
            fault_rerun = optarg;
            break;
        case 'P':
            if (strcmp(optarg, "submission") && strcmp(optarg, "as-given"))
                fatal("--paths takes submission or as-given, not %s", optarg);
            o.paths_submission = !strcmp(optarg, "submission");
            break;
        case 'i':
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                fatal("GRADER_ISOLATION=%s: use on or off", optarg);
            o.isolation = optarg;
            break;
        case 'B': o.bench = 1; break;
        case 'R': o.require_isolation = 1; break;
        case 'X': o.list_labs = 1; break;
        case 'Z': o.status_of = optarg; break;
        case 'H':
            if (sandbox_places_hide(&o.hidden, optarg) != 0)
                fatal("--hide %s: at most %d folders", optarg, SANDBOX_MAX_EXTRA);
            break;
        case 'v':
            if (o.n_variants < 64)
                o.variants[o.n_variants++] = optarg;
            break;
        case 'e':
            if (*optarg) {
                char *end;
                errno = 0;
                o.seed = strtoull(optarg, &end, 0);
                if (*end || errno || optarg[0] == '-')
                    fatal("SEED=%s is not a number (try SEED=0x1234abcd)", optarg);
                have_seed = 1;
            }
            break;
        default: usage();
        }
    }
    if (optind != argc ||
        (!o.list_labs && !o.status_of && (!o.labdir || !o.student_objs || !o.worker)))
        usage();
    /* The WHERE count runs the emulated build: grading's own under the emulator. */
    /* A fault on a GPU is run again on the emulated build, which make built beside the GPU's
     * when it named it (--where-labdir); `always` reruns under emulation too (the tests). */
    o.fault_rerun = !strcmp(fault_rerun, "always") ? 2
                  : !strcmp(fault_rerun, "gpu") && o.where_labdir && o.where_student_objs &&
                            o.where_worker ? 1 : 0;
    if (!o.where_labdir)
        o.where_labdir = o.labdir;
    if (!o.where_student_objs)
        o.where_student_objs = o.student_objs;
    if (!o.where_worker)
        o.where_worker = o.worker;
    /* The run's own places, hidden from student code with what a batch added. */
    o.hidden.checkout = ".";
    o.hidden.solutions = "solutions";
    o.hidden.labdir = o.labdir;
    o.hidden.student_objs = o.student_objs;
    o.hidden.logs = o.logs;
    if (!have_seed && getrandom(&o.seed, sizeof o.seed, 0) != sizeof o.seed)
        o.seed = (unsigned long long)time(NULL) * 2654435761u ^ (unsigned long long)getpid();
    return o;
}

/* The labs LAB= names (lab_select.h), or all; exits with the list of labs on a typo. */
static int select_labs(const options *o, const lab_info **out)
{
    char err[1024];
    const int n = lab_list_parse(o->labs ? o->labs : "", out, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "error: %s\n", err);
        exit(2);
    }
    return n;
}

/* The course config in force (config_load), or the run stops with its error. */
static void load_config(config *cfg)
{
    char err[512];
    if (config_load(cfg, err, sizeof err))
        fatal("%s", err);
}

/* grader/driver/grade.sh: the exit status a results.json records (0, 1 or 2), read with the JSON
 * parser; 3 and a message when there is none to read. */
static int print_status_of(const char *path)
{
    char err[256];
    jv *r = jv_parse_file(path, 256u << 20, err, sizeof err);
    const double status = r ? jv_num(jv_get(r, "exit_status"), -1) : -1;
    if (r)
        snprintf(err, sizeof err, "no exit_status");
    jv_free(r);
    if (status != 0 && status != 1 && status != 2) {
        fprintf(stderr, "grade-driver: %s records no exit status (%s)\n", path, err);
        return 3;
    }
    printf("%d\n", (int)status);
    return 0;
}

/* One grading run at a time per report folder: a second one waits, and says so. */
static void lock_report_folder(const options *o)
{
    char lock_path[1024];
    snprintf(lock_path, sizeof lock_path, "%s/.lock", o->logs);
    const int lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
        printf("Another grading run is using %s; waiting for it to finish (use GRADE_DIR=... "
               "to grade side by side)...\n", o->logs);
        fflush(stdout);
        if (flock(lock_fd, LOCK_EX) != 0)
            fatal("cannot lock %s", lock_path);
    }
}

/* Grade the labs the build left (built[i], its log build_logs[i]): the terminal table and
 * results.json. Returns main's exit status. */
static int grade_all(const options *o, const lab_info *const *labs, int n, const lab_build *built,
                     char build_logs[][1024])
{
    char seed_s[32];
    snprintf(seed_s, sizeof seed_s, "0x%llx", o->seed);
    const char *student = o->paths_submission ? "your submission" : o->student;
    static results_file rf;
    results_open(&rf, o->json, o->mode, seed_s, student, o->student_objs);
    config cfg = {.n = 0};
    load_config(&cfg);
    results_overrides(&rf.w, &cfg);
    terminal_run_begin(student, o->mode, seed_s);
    totals t;
    memset(&t, 0, sizeof t);
    t.tamper_proof = 1;
    snprintf(t.sandbox, sizeof t.sandbox, "none");
    if (strcmp(o->isolation, "on")) { /* asked off: no greeting can say otherwise */
        t.tamper_proof = 0;
        snprintf(t.isolation, sizeof t.isolation, "isolation switched off (GRADER_ISOLATION=off)");
    }
    json_array_begin(&rf.w, "labs");
    int whole[64];
    for (int i = 0; i < n; i++)
        whole[i] = built[i] == LAB_BUILT;
    where_ahead_begin(&ahead, labs, whole, n);
    for (int i = 0; i < n; i++)
        grade_lab(o, &cfg, labs[i], built[i], build_logs[i], &rf.w, &t);
    where_ahead_end(&ahead);
    harness_stop(&the_harness, NULL); /* (its last lab ended: it holds nothing) */
    record_free(&the_greeting.device);
    json_array_end(&rf.w);
    t.speed_graded = strcmp(o->mode, "emu") != 0;
    /* 0 full marks; 1 a point lost for sure (a check failed, or a lab not started); 2 a check
     * could not run (with no GPU, every speed check) and none failed */
    const int status = t.failed || t.not_started ? 1 : t.not_run ? 2 : 0;
    results_close(&rf, &t, status, stop_signal != 0);
    terminal_run_end(&t, refused_unisolated, status, o->json);
    costs_print(o->logs, labs, n, the_harness.started); /* GRADER_COSTS=1: the driver calls a
                                                            student cost */
    return refused_unisolated ? 2 : status;
}

int main(int argc, char **argv)
{
    /* Nothing of what the caller left open beyond the three standard descriptors (a script's
     * pipe to the terminal, make's jobserver): every process started from here would inherit it,
     * and for student code that shares the harness's process (isolation off) it would be a way
     * out of the logs. This process's own descriptors are opened close-on-exec. */
    closefrom(3);
    const options o = parse_options(argc, argv);
    where_cfg = (where_setup){{o.mode, o.where_labdir, o.where_student_objs, o.where_worker,
                               o.hidden},
                              o.logs, o.student, o.where, o.where_budget,
                              rng_derive(o.seed, 0x5ec0dd5a11ull) | 1ull << 63};
    if (o.paths_submission)
        shown_submission(o.student, o.logs);
    if (o.status_of)
        return print_status_of(o.status_of);
    /* No process of the same user may read or write this one's memory through /proc/PID/mem
     * (verdicts are decided here). */
    prctl(PR_SET_DUMPABLE, 0);
    terminal_init();
    const lab_info *labs[64];
    const int n = select_labs(&o, labs);
    if (o.list_labs) { /* the Makefile's make profile and make sanitize read LAB= through this */
        for (int i = 0; i < n; i++)
            printf("%s\n", labs[i]->name);
        return 0;
    }
    if (!o.paths_submission) /* the student's file in every report as they gave it */
        for (int i = 0; i < n; i++) {
            char compiled[256], given[4096];
            lab_student_compiled(o.student, labs[i], compiled, sizeof compiled);
            lab_student_file(o.student, labs[i], given, sizeof given);
            shown_place(compiled, given);
            /* its helpers, in the lab's folder as compiled ("06-transpose/"), where the student
             * has them: beside the file given (a file given alone in the current folder: "") */
            char *slash_c = strrchr(compiled, '/'), *slash_g = strrchr(given, '/');
            if (slash_c) {
                slash_c[1] = 0;
                if (slash_g)
                    slash_g[1] = 0;
                else
                    given[0] = 0;
                shown_place(compiled, given);
            }
        }
    mkdir(o.logs, 0755);
    /* A harness that ended between checks closes its end of the command pipe: the next
     * command's write then fails (EPIPE), its reply reads as the end of the harness, and the
     * check says so, where SIGPIPE would end this process and the whole run with it. (Every
     * harness ignores SIGPIPE already, and its workers with it: nothing below changes.) */
    signal(SIGPIPE, SIG_IGN);
    /* Ctrl-C, SIGTERM, SIGHUP, `timeout`: every process of the run ends, results.json is
     * left as it was (this run's is written whole, or not at all). */
    stop_on_signals(500, "everything this grading started has ended, and it wrote no "
                         "results. Run the same command again to grade.");
    if (o.bench)
        return bench_all(&o, labs, n);
    lock_report_folder(&o);
    /* (a lab's files from an earlier run go before any harness of this one starts: a check
     * that does not run now, after a build that failed, leaves none to be read as this run's) */
    for (int i = 0; i < n; i++)
        lab_files_clear(&o, labs[i]);
    /* What the build step (make, before this program) built and vetted: no student code has
     * run before this point. */
    lab_build built[64];
    static char build_logs[64][1024];
    for (int i = 0; i < n; i++)
        built[i] = built_lab(&o, labs[i], build_logs[i], sizeof build_logs[i]);
    remove_built_dir(&o);
    return grade_all(&o, labs, n, built, build_logs);
}
