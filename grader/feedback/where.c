/* where.c - TRUSTED, NO GPU: make grade's WHERE line (see where.h). */
#include "where.h"
#include "estimate.h"
#include "../plan/lab_select.h"
#include "../wire/folder.h"
#include "../wire/child.h"
#include "../wire/stop.h"
#include "../../common/text.h"
#include "../../common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* AddressSanitizer's quarantine in the WHERE count's processes, MiB (its default is 256): the
 * count needs no use-after-free detection, the checks having run the same code with the whole
 * quarantine, and the emulator's counting frees much: with the default, the allocator's churn
 * took over a third of the count (lab 05's: 4.0 CPU-seconds, 2.5 with 16 MiB). */
#define WHERE_QUARANTINE_MIB 16

/* Copy `from` to `to` for the renderer to quote: only a regular file (no link, FIFO or
 * device), at most 4 MiB; otherwise `to` is left empty. */
static void copy_quoted(const char *from, const char *to)
{
    const int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int in = from && *from ? open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    struct stat st;
    if (in >= 0 && out >= 0 && fstat(in, &st) == 0 && S_ISREG(st.st_mode)) {
        char buf[65536];
        size_t left = 4u << 20;
        ssize_t n;
        while (left > 0 && (n = read(in, buf, left < sizeof buf ? left : sizeof buf)) > 0) {
            if (write(out, buf, (size_t)n) != n)
                break;
            left -= (size_t)n;
        }
    }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

/* The lab's public headers (its contract: *.h, then *.cuh, each in name order), copied into
 * dir/headers for the renderer to quote; their names, space-separated, into `names`. */
static void copy_headers(const char *folder, const char *dir, char *names, size_t len)
{
    static const char *const kinds[] = {".h", ".cuh"};
    char from[1500], to[2400];
    names[0] = 0;
    snprintf(to, sizeof to, "%s/headers", dir);
    mkdir(to, 0755);
    for (int k = 0; k < 2; k++) {
        struct dirent **list;
        snprintf(from, sizeof from, "%s/%s", WHERE_TABLES, folder);
        const int n = scandir(from, &list, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            const char *name = list[i]->d_name;
            const size_t nl = strlen(name), kl = strlen(kinds[k]);
            if (nl > kl && !strcmp(name + nl - kl, kinds[k])) {
                snprintf(from, sizeof from, "%s/%s/%s", WHERE_TABLES, folder, name);
                snprintf(to, sizeof to, "%s/headers/%s", dir, name);
                copy_quoted(from, to);
                snprintf(names + strlen(names), len - strlen(names), "%s%s", names[0] ? " " : "", name);
            }
            free(list[i]);
        }
        if (n >= 0)
            free(list);
    }
}

/* 1 if a line of the file at PATH (one the grader wrote) starts with PREFIX. */
static int log_says(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    char buf[1024];
    int found = 0;
    while (f && !found && fgets(buf, sizeof buf, f))
        found = !strncmp(buf, prefix, strlen(prefix));
    if (f)
        fclose(f);
    return found;
}

/* Say in the WHERE log why there is no count: `what`, then the last lines of the harness's log
 * that say what it was doing (its own, the sandbox's and the emulator's), shown as data. */
static void where_failed(const char *log_path, const char *what, const char *harness_log)
{
    FILE *log = fopen(log_path, "a");
    if (!log)
        return;
    fprintf(log, "%s\n", what);
    FILE *h = harness_log ? fopen(harness_log, "r") : NULL;
    if (h) {
        char keep[4][512], buf[512];
        int n = 0;
        while (fgets(buf, sizeof buf, h))
            if (!strncmp(buf, "profile: ", 9) || !strncmp(buf, "harness: ", 9) ||
                !strncmp(buf, "cuda-emu: ", 10))
                snprintf(keep[n++ % 4], sizeof keep[0], "%s", buf);
        fclose(h);
        fprintf(log, "what the harness said (%s):\n", harness_log);
        for (int i = n > 4 ? n - 4 : 0; i < n; i++) {
            fputs("  | ", log);
            text_put_n(log, keep[i % 4], strcspn(keep[i % 4], "\n"), 0);
            fputc('\n', log);
        }
    }
    fclose(log);
}

/* 1 when the run gives lab a speed estimate: no GPU, and a lab estimate-limits.tsv does not
 * list (its ESTIMATE line says why there is none, with no count of its own). */
static int where_estimates(const where_setup *o, const lab_info *lab)
{
    char why[600];
    return !strcmp(o->emu.mode, "emu") &&
           !estimate_none(WHERE_TOOLS "/estimate-limits.tsv", lab->number, why, sizeof why);
}

/* Count one call of the student's code and one of the reference's per speed problem on the CPU
 * emulator: the lab's emulated harness, with isolation on, runs each in a sandboxed worker under
 * grading's whole policy (it refuses to count where it cannot isolate), and copies the
 * emulator's counts into w->counts as data (grader/harness/profile_trusted.cu), its sections
 * to w->sections. Returns 0, -2 when `left` seconds ran out, else -1 with the reason in w->log. */
static int where_count(const where_setup *o, const lab_info *lab, const record *dev,
                       const where_files *w, double left)
{
    char harness[1024], reference[1024], student[1024];
    snprintf(harness, sizeof harness, "%s/%s/harness", o->emu.labdir, lab->name);
    snprintf(reference, sizeof reference, "%s/%s/reference.so", o->emu.labdir, lab->name);
    snprintf(student, sizeof student, "%s/%s/student.so", o->emu.student_objs, lab->name);
    if (access(harness, X_OK) != 0 || access(reference, R_OK) != 0 || access(student, R_OK) != 0) {
        /* make built it beside the GPU's: its build log (the start of w->log) says why not */
        where_failed(w->log, "the CPU emulator's build of this lab is not there (the lines above "
                     "say why)", NULL);
        return -1;
    }
    char asan[256], sms_env[32], *env[3];
    emu_env(&o->emu, dev, asan, sms_env, env);
    const size_t asan_len = strlen(asan);
    snprintf(asan + asan_len, sizeof asan - asan_len, ":quarantine_size_mb=%d",
             WHERE_QUARANTINE_MIB);
    /* With no GPU, the GPU the speed is estimated for (GPU_PROFILE, a T4 unset: estimate.h) */
    if (!strcmp(o->emu.mode, "emu") && estimate_gpu()) {
        snprintf(sms_env, sizeof sms_env, "CUDA_EMU_SMS=%d", estimate_gpu()->sm_count);
        env[1] = sms_env;
    }
    const sandbox_places places = emu_places(&o->emu);
    char *argv[64];
    int n = 0;
    argv[n++] = harness, argv[n++] = "--profile", argv[n++] = "--isolation", argv[n++] = "on";
    argv[n++] = "--counts", argv[n++] = (char *)w->counts, argv[n++] = "--worker-log";
    argv[n++] = (char *)w->workers, argv[n++] = "--worker", argv[n++] = (char *)o->emu.worker;
    argv[n++] = "--student", argv[n++] = student, argv[n++] = "--reference", argv[n++] = reference;
    /* the reference's counts, kept beside its emulated object for the gradings that follow */
    char kept[1100];
    snprintf(kept, sizeof kept, "%s/%s/reference.counts", o->emu.labdir, lab->name);
    argv[n++] = "--reference-counts", argv[n++] = kept;
    /* and the student's at the first size, beside the student's emulated object (the second
     * size's, drawn from the run's seed, are counted at every run) */
    char yours_kept[1100];
    snprintf(yours_kept, sizeof yours_kept, "%s/%s/student.counts", o->emu.student_objs,
             lab->name);
    argv[n++] = "--student-counts", argv[n++] = yours_kept;
    /* with no GPU, a lab that gets an estimate is counted at its second size too */
    char draw[32];
    if (where_estimates(o, lab)) {
        argv[n++] = "--second-counts", argv[n++] = (char *)w->counts2;
        if (o->second_draw) { /* (a size near the table's second, not at it: the draw's
                                * 4 bits alone, nothing more of the seed on a command line) */
            snprintf(draw, sizeof draw, "%llx", o->second_draw % 16);
            argv[n++] = "--second-draw", argv[n++] = draw;
        }
    }
    if (sandbox_places_args(&places, argv, &n, 62) != 0)
        return -1;
    argv[n] = NULL;
    const int status = run_counted(argv, env, NULL, w->sections, w->harness_log, 0, 1, left);
    if (status == -2)
        return -2;
    if (status != 0) {
        char what[200];
        snprintf(what, sizeof what, "the calls failed under the emulator; make grade LAB=%s says "
                 "whether the code fails where it is graded too, and why", lab->number);
        where_failed(w->log, what, w->harness_log);
        return -1;
    }
    struct stat st;
    if (stat(w->counts, &st) != 0 || st.st_size == 0) {
        where_failed(w->log, "the emulator counted no memory access", w->harness_log);
        return -1;
    }
    return 0;
}

/* The counts as one line, by make explain's own renderer (explain.awk -v where=1, run by execv
 * with every value as an argument), into w->line: it quotes the copy of the student's file the
 * compile sandbox built (the only file its lines are quoted from), the reference's source and
 * the lab's headers, each copied into w->dir first. Returns as run_counted. */
static int where_render(const where_setup *o, const lab_info *lab, const where_files *w, double left)
{
    char source[1024], ref_source[1024], shown[1024], headers[512], yours[1100], ref_copy[1100],
        v[10][1300];
    snprintf(source, sizeof source, "%s/%s/source.cu", o->emu.student_objs, lab->name);
    lab_student_file(o->emu.hidden.solutions, lab, ref_source, sizeof ref_source); /* (its tree) */
    const int has_ref = access(ref_source, R_OK) == 0; /* (a student kit has none: no quotes) */
    lab_student_file(o->student, lab, shown, sizeof shown);
    const char *base = strrchr(shown, '/');
    snprintf(yours, sizeof yours, "%s/yours.src", w->dir);
    snprintf(ref_copy, sizeof ref_copy, "%s/reference.src", w->dir);
    copy_quoted(source, yours);
    copy_quoted(has_ref ? ref_source : NULL, ref_copy);
    copy_headers(w->folder, w->dir, headers, sizeof headers);
    snprintf(v[0], sizeof v[0], "source=%s", yours);
    snprintf(v[1], sizeof v[1], "ref_source=%s", ref_copy);
    snprintf(v[2], sizeof v[2], "table=%s/%s/explain.tsv", WHERE_TABLES, w->folder);
    if (!strcmp(o->student, "labs"))
        snprintf(v[3], sizeof v[3], "label=your code (%s)", shown);
    else
        snprintf(v[3], sizeof v[3], "label=%s (%s)", o->student, shown);
    snprintf(v[4], sizeof v[4], "lab=%s", w->folder);
    snprintf(v[5], sizeof v[5], "source_name=%s", base ? base + 1 : shown);
    snprintf(v[6], sizeof v[6], "shown=%s", shown);
    snprintf(v[7], sizeof v[7], "ref_name=%s", has_ref ? strrchr(ref_source, '/') + 1 : "");
    snprintf(v[8], sizeof v[8], "header_dir=%s/headers", w->dir);
    snprintf(v[9], sizeof v[9], "headers=%s", headers);
    char *argv[40] = {"awk", "-F", "\t"};
    int n = 3;
    for (int i = 0; i < 10; i++)
        argv[n++] = "-v", argv[n++] = v[i];
    argv[n++] = "-v", argv[n++] = "where=1";
    argv[n++] = "-f", argv[n++] = WHERE_TOOLS "/counts.awk";
    argv[n++] = "-f", argv[n++] = WHERE_TOOLS "/timeline.awk";
    argv[n++] = "-f", argv[n++] = WHERE_TOOLS "/explain.awk";
    argv[n++] = (char *)w->sections, argv[n++] = (char *)w->counts, argv[n] = NULL;
    char *env[] = {"LC_ALL=C", NULL};
    return run_counted(argv, env, NULL, w->line, w->log, 1, 0, left);
}

/* The waiting the run's WHERE lines have done so far (what o->budget counts). */
static double where_spent;


void where_start(const where_setup *o, const lab_info *lab, const record *dev, int nice_it,
                        where_job *j)
{
    memset(j, 0, sizeof *j);
    where_files *w = &j->w;
    lab_folder(lab, w->folder, sizeof w->folder);
    report_lab_file(w->dir, sizeof w->dir, o->logs, lab->name, REPORT_WHERE_DIR);
    report_lab_file(w->line, sizeof w->line, o->logs, lab->name, REPORT_WHERE_LINE);
    report_lab_file(w->log, sizeof w->log, o->logs, lab->name, REPORT_WHERE_LOG);
    snprintf(w->counts, sizeof w->counts, "%s/counts.tsv", w->dir);
    snprintf(w->sections, sizeof w->sections, "%s/sections.txt", w->dir);
    snprintf(w->harness_log, sizeof w->harness_log, "%s/harness.log", w->dir);
    snprintf(w->workers, sizeof w->workers, "%s/workers.log", w->dir);
    snprintf(w->estimate, sizeof w->estimate, "%s/estimate.tsv", w->dir);
    snprintf(w->counts2, sizeof w->counts2, "%s/counts2.tsv", w->dir);
    mkdir(w->dir, 0755);
    unlink(w->counts);
    unlink(w->counts2);
    unlink(w->estimate);
    unlink(w->line);
    j->started = wall_seconds();
    scratch_make(j->tmp, sizeof j->tmp, "grader-where");
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = stop_fork(SIGKILL); /* its own group: killed whole on a stop or a timeout */
    if (pid < 0) {
        scratch_remove(j->tmp);
        return;
    }
    if (pid == 0) { /* (its programs die with it: stop_fork) */
        if (j->tmp[0])
            setenv("TMPDIR", j->tmp, 1);
        const int in = open("/dev/null", O_RDONLY), log = open(w->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in < 0 || log < 0)
            _exit(127);
        dup2(in, 0);
        dup2(log, 1);
        dup2(log, 2);
        if (nice_it && nice(19) == -1) { /* (a lower priority only; nothing rests on it) */
        }
        int status = where_count(o, lab, dev, w, 1e9); /* (the budget is the waiter's) */
        if (status == 0)
            status = where_render(o, lab, w, 1e9);
        estimate_command est; /* with no GPU, the speed estimated from the same counts */
        char table[1200];
        snprintf(table, sizeof table, "%s/%s/explain.tsv", WHERE_TABLES, w->folder);
        char source[1100]; /* the copy where_render made of the file compiled */
        snprintf(source, sizeof source, "%s/yours.src", w->dir);
        if (status == 0 && where_estimates(o, lab) &&
            estimate_command_make(&est, WHERE_TOOLS, table, w->sections, w->counts, w->counts2,
                                  source) == 0)
            run_counted(est.argv, (char *[]){"LC_ALL=C", NULL}, NULL, w->estimate, w->log, 1, 0,
                        1e9);
        _exit(status == 0 ? 0 : 1);
    }
    j->pid = pid;
}

/* A count started beside the checks and not wanted (the lab's speed passed, or a check failed):
 * stopped. */
void where_drop(where_job *j)
{
    if (j->pid <= 0)
        return;
    kill(-j->pid, SIGKILL);
    waitpid(j->pid, NULL, 0);
    stop_forget(j->pid);
    j->pid = 0;
    scratch_remove(j->tmp);
}

/* Wait for the count (within what is left of the budget) and read its line. 1 if the job had
 * been ended from outside (a harness restart sweeps every child), so that it can be run again. */
static int where_finish(const where_setup *o, const lab_info *lab, where_job *j, char *line,
                        size_t len)
{
    line[0] = 0;
    if (j->pid <= 0)
        return 1;
    const double start = wall_seconds(), left = o->budget - where_spent;
    int status = 0;
    /* (no sweep: the lab's harness is still running; the sandbox ends its own) */
    const int ended = child_wait_or_kill(j->pid, start, left, &status);
    j->pid = 0;
    scratch_remove(j->tmp);
    if (ended < 0) /* reaped by a sweep (a harness restart): gone */
        return 1;
    const int done = ended == 1;
    where_spent += wall_seconds() - start;
    if (done && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        return 1; /* not our doing */
    if (!done) {
        snprintf(line, len, "not counted in time (the run's %.0f s for these hints ran out): "
                 "make explain LAB=%s counts every line of yours", o->budget, lab->number);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (log_says(j->w.log, "  | profile: your counted call's answer at the counted size"))
            snprintf(line, len, "no count and no estimate: your code's answer in the counted call "
                     "was wrong (%.600s says where), and a count of a wrong call would describe "
                     "code that does not do the task; make explain LAB=%s says it too",
                     j->w.log, lab->number);
        else if (log_says(j->w.log, "  | profile: your counted call at the counted size"))
            snprintf(line, len, "no count and no estimate: your code in the counted call did not "
                     "do the task as the checks require (it changed its input, wrote outside an "
                     "output or broke a rule of the lab: %.600s says which), and a count of that "
                     "call would describe code that does not do the task; make explain LAB=%s "
                     "says it too", j->w.log, lab->number);
        else
            snprintf(line, len, "the CPU emulator could not count your code (%.600s says why); "
                     "make explain LAB=%s says it too", j->w.log, lab->number);
        return 0;
    }
    FILE *f = fopen(j->w.line, "r");
    if (f && fgets(line, (int)len, f))
        line[strcspn(line, "\n")] = 0;
    if (f)
        fclose(f);
    if (!line[0] && strcmp(o->emu.mode, "emu")) /* untimed, and nothing to point at: no line */
        snprintf(line, len, "the CPU emulator's counts show nothing far from the ideal in your "
                 "code at its small size; make explain LAB=%s shows every counter and what it "
                 "does not count", lab->number);
    return 0;
}

/* The WHERE line, from the count started beside the checks (*j, if running) or from one
 * started now. */
void where_hint(const where_setup *o, const lab_info *lab, const record *dev, where_job *j,
                       char *line, size_t len)
{
    line[0] = 0;
    if (!o->on)
        return;
    if (o->budget - where_spent < 1) {
        where_drop(j);
        snprintf(line, len, "not counted this time (the run's %.0f s for these hints are spent): "
                 "make explain LAB=%s counts every line of yours", o->budget, lab->number);
        return;
    }
    if (j->pid > 0 && !where_finish(o, lab, j, line, len))
        return;
    where_start(o, lab, dev, 0, j);
    where_finish(o, lab, j, line, len);
}

double where_left(const where_setup *o)
{
    return o->budget - where_spent;
}

/* Where j's count is (its process looked at, not reaped: where_finish reads its status). */
typedef enum { WHERE_RUNNING, WHERE_ENDED, WHERE_GONE /* none, or reaped by a sweep */ } where_state;
static where_state where_probe(const where_job *j)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (j->pid <= 0 || waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return WHERE_GONE;
    return si.si_pid == 0 ? WHERE_RUNNING : WHERE_ENDED;
}

/* 1 while j's count runs; 0 once it has ended, or where a sweep reaped it. */
static int where_running(const where_job *j) { return where_probe(j) == WHERE_RUNNING; }

void where_ahead_begin(where_ahead *a, const lab_info *const *labs, const int *built, int n)
{
    *a = (where_ahead){labs, built, n, 0, n > 0 ? xcalloc((size_t)n, sizeof *a->jobs) : NULL};
}

void where_ahead_go(const where_setup *o, where_ahead *a, const lab_info *cur,
                    const where_job *own, int own_pending, const record *dev)
{
    if (!a->jobs || !o->on || strcmp(o->emu.mode, "emu") || where_left(o) < 1 ||
        (own->pid > 0 ? where_running(own) : own_pending))
        return;
    int k = 0;
    for (int i = 0; i < a->n; i++) {
        if (where_running(&a->jobs[i]))
            return; /* (one at a time) */
        if (a->labs[i] == cur)
            k = i + 1;
    }
    for (k = k > a->next ? k : a->next; k < a->n; k++)
        if (a->built[k] && a->jobs[k].pid == 0) {
            where_start(o, a->labs[k], dev, 1, &a->jobs[k]);
            a->next = k + 1;
            return;
        }
}

void where_ahead_take(where_ahead *a, const lab_info *lab, where_job *j)
{
    for (int i = 0; a->jobs && i < a->n; i++)
        if (a->labs[i] == lab && a->jobs[i].pid > 0) {
            where_job *k = &a->jobs[i];
            if (where_probe(k) == WHERE_GONE) {
                /* reaped by a sweep (a harness restart ended it): gone, and the lab counts
                 * beside its checks as it would have */
                stop_forget(k->pid);
                scratch_remove(k->tmp);
            } else {
                *j = *k;
            }
            memset(k, 0, sizeof *k);
        }
}

void where_ahead_end(where_ahead *a)
{
    for (int i = 0; a->jobs && i < a->n; i++)
        where_drop(&a->jobs[i]);
    free(a->jobs);
    a->jobs = NULL;
}
