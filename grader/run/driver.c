/* driver.c - TRUSTED, NO GPU: `make grade` and `make bench`, the grader's main program.
 *
 *   grade-driver --labdir DIR --student-dir DIR --worker EXE --mode gpu|emu [--lab NAME,...]
 *                [--seed S] [--student DIR] [--isolation on|off] [--built DIR]
 *                [--json FILE] [--logs DIR] [--hide DIR ...] [--where-budget S [--where-labdir DIR
 *                --where-student-dir DIR --where-worker EXE]] [--fault-rerun gpu|always|off]
 *                [--bench --variants 'LAB:NAME=SO ...' ...]
 *
 * It builds nothing and runs neither make nor a shell: make builds every selected lab first
 * (grader/build/grade.mk, which leaves a status per lab in --built DIR), so no student code runs
 * before all building and vetting is done. Then, per lab, one harness
 * process (grader/run/harness.cu) runs the rows of the lab's table one by one, each with a time
 * limit, and this program decides each verdict from the records the harness wrote. The
 * harness holds no student code: that runs in sandboxed workers the harness starts. A build
 * failure, crash or hang costs that check's points and grading goes on. Whether the run was
 * tamper-proof, the sandbox and the GPU it names come from what this program asked for and
 * from each harness's greeting, its first two lines, sent before any student code can be in
 * its process (decide/verdict.h), never from a check's records. Prints one line per
 * check and `Score: N/M` (report/terminal.h); writes everything needed to regrade to the JSON
 * file (report/results_json.h). Exit: 0 full
 * marks, 1 a point was lost, 2 a check could not run (and none failed).
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
#include "../wire/check_line.h"
#include "../feedback/fault_rerun.h"
#include "../plan/config.h"
#include "../decide/verdict.h"
#include "gpu_neighbours.h"
#include "../plan/lab_select.h"
#include "../sandbox/sandbox.h"
#include "../decide/score.h"
#include "../plan/speed_plan.h"
#include "../feedback/estimate.h"
#include "../wire/stop.h"
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

typedef struct options {
    const char *labdir;   /* directory holding <lab>/harness and <lab>/reference.so */
    const char *student_objs; /* directory holding <lab>/student.so */
    const char *worker;   /* the worker program */
    const char *isolation;/* "on" or "off" */
    const char *variants[64]; /* bench: "lab:name=so name=so ..." */
    int n_variants;
    int require_isolation; /* 1: a run that cannot isolate student code stops (batch grading) */
    const char *mode;     /* "gpu" or "emu" */
    const char *labs;     /* comma-separated lab names or numbers, or NULL for all */
    const char *student;  /* the student directory graded, for the report */
    const char *built;    /* the build's folder (--built: grader/build/grade.mk's GRADE_BUILT), or NULL
                             when nothing was built for this run (everything is taken as built) */
    const char *json;     /* where results.json goes */
    const char *logs;     /* where per-check logs go */
    sandbox_places hidden; /* what student code never sees: this run's places, and the
                              folders a batch adds (--hide); the harness gets them by name */
    unsigned long long seed; /* the run's secret seed */
    int bench;            /* 1: print the bench table instead of grading */
    int list_labs;        /* 1: print the labs --lab selects, one name a line, and stop */
    const char *status_of; /* a results.json whose exit status to print, and stop; or NULL */
    const char *make_files; /* the Makefile's student file of every lab, space-separated, or
                               NULL: checked against lab_student_file before anything runs */
    int where;             /* 1: make grade's WHERE hints (where_hint) */
    double where_budget;   /* seconds all of a run's WHERE hints may take */
    const char *where_labdir;  /* the CPU emulator's <lab>/harness and reference.so: --labdir
                                  under emulation, the emulated build beside a GPU's */
    const char *where_student_objs; /* the emulator's <lab>/student.so and source.cu */
    const char *where_worker;  /* the emulator's worker program */
    int paths_submission;  /* 1 (--paths submission, a batch): paths shown as the student's
                              submission has them, the grader's folders left out (shown_text) */
    int fault_rerun;       /* a fault of the student's code run again on the CPU emulator to
                              name its line (check_fault_rerun): 1 on a GPU with the emulated
                              build beside it (--where-labdir), 2 also under emulation
                              (--fault-rerun always: the tests), 0 never (--fault-rerun off) */
} options;

/* ------------------------------------------------------------------------------------------ */
/* Building a lab                                                                              */

/* What the build left for a lab (lab_build, ../report/report.h); its build log moved into the
 * report folder as <lab>.build.log, and under a GPU, the emulator's build log for the WHERE
 * line as <lab>.where.log. */
static lab_build built_lab(const options *o, const lab_info *lab, char *log_path, size_t len)
{
    log_path[0] = 0;
    if (!o->built)
        return LAB_BUILT;
    char status_path[1024], from[1024], word[32] = "";
    snprintf(status_path, sizeof status_path, "%s/%s.status", o->built, lab->name);
    snprintf(from, sizeof from, "%s/%s.build.log", o->built, lab->name);
    snprintf(log_path, len, "%s/%s.build.log", o->logs, lab->name);
    if (rename(from, log_path) != 0)
        unlink(log_path); /* no log from this build: none from an earlier one either */
    /* under a GPU, the emulator's build of the lab for the WHERE line: the start of its log */
    char where_from[1024], where_to[1024];
    snprintf(where_from, sizeof where_from, "%s/%s.where.build.log", o->built, lab->name);
    snprintf(where_to, sizeof where_to, "%s/%s.where.log", o->logs, lab->name);
    if (rename(where_from, where_to) != 0)
        unlink(where_to);
    FILE *f = fopen(status_path, "r");
    if (!f)
        return LAB_NOT_BUILT;
    const int got = fscanf(f, "%31s", word);
    fclose(f);
    unlink(status_path);
    if (got != 1)
        return LAB_NOT_BUILT;
    return !strcmp(word, "ok") ? LAB_BUILT : !strcmp(word, "student") ? LAB_STUDENT_FAILED
         : !strcmp(word, "refused") ? LAB_REFUSED
         : !strcmp(word, "grader") ? LAB_GRADER_FAILED : !strcmp(word, "steps") ? LAB_STEPS_FAILED
         : LAB_NOT_BUILT;
}

/* The build's folder, once every lab's status and log is taken: what is left (the marks of
 * grader/build/lab_step.sh and lab_status.sh) goes, and the folder with it. */
static void remove_built_dir(const options *o)
{
    if (!o->built)
        return;
    char from[1024];
    DIR *d = opendir(o->built);
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(from, sizeof from, "%s/%s", o->built, e->d_name);
                unlink(from);
            }
        closedir(d);
    }
    rmdir(o->built);
}

/* The emulator's refusal in a build log: the feature and its place from emu-nvcc's line
 * "cuda-emu: refused: FEATURE at line N of FILE; a GPU grades it" (the first), into `out`
 * ("" if there is none). The text came through the student's compile: it is shown as data,
 * and a refusal earns nothing, so a forged one gains nothing over the failure it replaces. */
static void read_refusal(const char *log_path, char *out, size_t len)
{
    static const char mark[] = "cuda-emu: refused: ", tail[] = "; a GPU grades it";
    out[0] = 0;
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char buf[1024];
    while (!out[0] && fgets(buf, sizeof buf, f))
        if (!strncmp(buf, mark, sizeof mark - 1)) {
            buf[strcspn(buf, "\n")] = 0;
            char *end = strstr(buf, tail);
            if (end)
                *end = 0;
            /* (a longer refusal is cut to LEN: the emulator's own are one short line) */
            snprintf(out, len, "%.*s", (int)(len - 1), buf + sizeof mark - 1);
        }
    fclose(f);
}

/* ------------------------------------------------------------------------------------------ */
/* The lab's harness: one process per lab, one command per check                              */

typedef struct harness_proc {
    pid_t pid;   /* 0 when not running */
    FILE *cmd;   /* its stdin: one command per line */
    int reply;   /* its stdout: its greeting (two lines), then "done N" per check */
    int greeted; /* lines of its greeting read so far (2: all; later lines are never read as
                    one: by then student code may be in it, under the fallback) */
    char tmp[PATH_MAX]; /* its TMPDIR, made for it and removed when it ends; "" if none */
} harness_proc;

/* Set when grading must not go on (isolation was required and is impossible): the checks
 * left say so. A stop by a signal never returns here: stop.c ends the run there and then. */
static volatile sig_atomic_t stop_signal;
static int refused_unisolated;             /* stopped: isolation was required and impossible */

/* A TMPDIR for a process this one starts, PREFIX-XXXXXX in this run's TMPDIR, into dir: its
 * workers' scratch folders (made where namespaces are refused) lie in it, and this process
 * removes it once that process has ended, however it ended (one killed, by a timeout or a stop,
 * cannot remove them itself; a stop removes it too). Searchable by all: graded as root, a
 * worker runs as another uid. "" if it could not be made: the process uses the run's TMPDIR
 * then, and its workers still remove theirs. */
static void scratch_make(char *dir, size_t len, const char *prefix)
{
    const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, len, "%s/%s-XXXXXX", base, prefix);
    if (!mkdtemp(dir) || chmod(dir, 0711) != 0)
        dir[0] = 0;
    else
        stop_temp_dir(dir);
}

/* Every process that could write in dir (scratch_make's) has ended: dir removed, and "". */
static void scratch_remove(char *dir)
{
    if (!dir[0])
        return;
    stop_remove_tree(dir);
    stop_temp_done(dir);
    dir[0] = 0;
}

static int harness_start(const options *o, const lab_info *lab, harness_proc *h, int ahead)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        return -1;
    char exe[512], ref[512], stu[512], log_path[512];
    snprintf(exe, sizeof exe, "%s/%s/harness", o->labdir, lab->name);
    snprintf(ref, sizeof ref, "%s/%s/reference.so", o->labdir, lab->name);
    snprintf(stu, sizeof stu, "%s/%s/student.so", o->student_objs, lab->name);
    snprintf(log_path, sizeof log_path, "%s/%s.harness.log", o->logs, lab->name);
    scratch_make(h->tmp, sizeof h->tmp, "grader-run"); /* its own TMPDIR */
    fflush(stdout);
    fflush(stderr);
    /* Its own group, so that a timeout or a stop kills it at once, and it dies with this
     * process; its workers, in sessions of their own, die with it (stop.h, rule 3). */
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0) {
        scratch_remove(h->tmp);
        return -1;
    }
    if (pid == 0) {
        const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (log >= 0)
            dup2(log, 2);
        sandbox_harness_view(!strcmp(o->mode, "emu"));
        if (h->tmp[0])
            setenv("TMPDIR", h->tmp, 1);
        char *argv[48];
        int n = 0;
        argv[n++] = exe, argv[n++] = "--serve", argv[n++] = "--worker", argv[n++] = (char *)o->worker;
        argv[n++] = "--student", argv[n++] = stu, argv[n++] = "--reference", argv[n++] = ref;
        argv[n++] = "--isolation", argv[n++] = (char *)o->isolation;
        /* what the student's worker may not see, by name (sandbox_worker_policy) */
        if (sandbox_places_args(&o->hidden, argv, &n, 45) != 0) {
            fprintf(stderr, "too many folders to hide from student code\n");
            _exit(127);
        }
        if (o->require_isolation)
            argv[n++] = "--require-isolation";
        if (ahead)
            argv[n++] = "--ahead";
        argv[n] = NULL;
        execv(exe, argv);
        fprintf(stderr, "cannot start %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    h->pid = pid;
    h->cmd = fdopen(in[1], "w");
    h->reply = out[0];
    return 0;
}

/* The next lab's harness, started while a lab is graded so that its start (its process, its
 * GPU context, its student's process, which holds no student code before its first call)
 * costs no lab any time: it says "ready" once all of that is done, and no speed check begins
 * before it has (ahead_wait), so nothing of its start runs beside a timed call. */
typedef struct ahead_harness {
    const lab_info *lab; /* its lab; NULL: none */
    harness_proc h;
    greeting g;          /* its greeting, as read while waiting for "ready" */
    int ready;           /* its "ready" line read */
} ahead_harness;
static ahead_harness ahead;
static harness_proc *lab_harness; /* the lab being graded's (spared when the ahead one ends) */

/* Stop the harness and everything it started (its workers die with it: PDEATHSIG). The other
 * harness alive (the lab's, or the one started ahead) lives on. */
static void harness_stop(harness_proc *h, child_outcome *o)
{
    if (h->pid <= 0)
        return;
    int status = 0;
    if (h->cmd)
        fclose(h->cmd);
    kill(-h->pid, SIGKILL);
    waitpid(h->pid, &status, 0);
    stop_forget(h->pid);
    const harness_proc *other = h == &ahead.h ? lab_harness : &ahead.h;
    /* its workers, adopted here once it died (stop.h, rule 4): reaped */
    stop_sweep_sparing(1000, other && other != h && other->pid > 0 ? other->pid : 0);
    scratch_remove(h->tmp); /* every process that could write there has ended */
    close(h->reply);
    if (o && !o->timed_out) {
        if (WIFEXITED(status)) {
            o->exited = 1;
            o->status = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            o->signal = WTERMSIG(status);
        }
    }
    memset(h, 0, sizeof *h);
}

/* One read of harness h's replies into buf (cap bytes, *got of them held), and every whole line
 * read so far taken: its greeting's two lines (greeting_take into g, once), then a line that is
 * `want` (or, `prefix`, starts with it). 1 once such a line was taken, 0 if none yet (any
 * other line is dropped), -1 if nothing could be read (the harness ended). */
static int harness_read_reply(const options *o, harness_proc *h, greeting *g, char *buf,
                              size_t cap, size_t *got, const char *want, int prefix)
{
    const ssize_t n = read(h->reply, buf + *got, cap - 1 - *got);
    if (n <= 0)
        return -1;
    *got += (size_t)n;
    buf[*got] = 0;
    int taken = 0;
    char *nl;
    while (!taken && (nl = strchr(buf, '\n'))) { /* every whole line read so far */
        *nl = 0;
        if (h->greeted < 2) /* its greeting, once */
            greeting_take(g, h->greeted++, buf, !strcmp(o->isolation, "on"),
                          sandbox_available() != SANDBOX_NONE);
        else if (prefix ? strncmp(buf, want, strlen(want)) == 0 : strcmp(buf, want) == 0)
            taken = 1;
        /* (anything else is not an answer: dropped) */
        *got -= (size_t)(nl + 1 - buf);
        memmove(buf, nl + 1, *got + 1);
    }
    if (*got >= cap - 1)
        *got = 0;
    return taken;
}

/* In a batch on several GPUs of one host (grade-batch sets GRADE_HOST_LINK_LOCK, a file of its
 * output folder, which no student's code sees), a lab whose timed calls cross the host link to
 * the GPU (lab_info.host_link: lab 05) times its speed checks one GPU at a time: the GPUs share
 * that link and host memory, and lab 05 graded on two GPUs at once gave self-check ratios of
 * 0.976-1.029 where one at a time gave 0.994-1.001 (tests/gpu/results/h100x2-multi-gpu-batch.txt).
 * Taken before the check's time limit starts, so the wait costs it no time; a stop ends the
 * run in its handler, waiting or not (stop.c). Returns the lock's descriptor, or -1: none. */
static int host_link_lock(const options *o, const lab_info *lab)
{
    const char *path = getenv("GRADE_HOST_LINK_LOCK");
    if (!lab->host_link || !path || !*path || strcmp(o->mode, "gpu"))
        return -1;
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

/* Run check `i` through the harness; fills o as if the check had been a process of its own
 * (exited 0 when the harness answered "done"). */
static void harness_check(const options *o, const lab_info *lab, harness_proc *h, greeting *g,
                          int i, double threshold, double timeout, const char *records,
                          const char *log_path, child_outcome *out)
{
    memset(out, 0, sizeof *out);
    const double start = wall_seconds();
    if (h->pid <= 0 && harness_start(o, lab, h, 0) != 0) {
        out->exited = 1;
        out->status = 127;
        return;
    }
    check_cmd cmd = {.check = i, .seed = o->seed, .threshold = threshold, .cap_s = SPEED_CAP_S,
                     .timeout_s = timeout};
    char line[CHECK_LINE_MAX];
    snprintf(cmd.records, sizeof cmd.records, "%s", records);
    snprintf(cmd.log, sizeof cmd.log, "%s", log_path);
    if (check_line_format(&cmd, line, sizeof line) != 0) { /* (paths too long to send) */
        out->exited = 1;
        out->status = 127;
        return;
    }
    fputs(line, h->cmd);
    fflush(h->cmd);
    char buf[RECORD_MAX_LINE];
    size_t got = 0;
    for (;;) {
        const double left = timeout - (wall_seconds() - start);
        struct pollfd pf = {h->reply, POLLIN, 0};
        const int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR && !stop_signal)
            continue;
        /* Held no student code: it ended before its greeting said otherwise (it reads the
         * command only after greeting), or greeted that student code runs isolated. */
        out->isolated = h->greeted < 2 || g->isolated;
        if (r <= 0) { /* the time limit (or Ctrl-C): everything of the lab's goes */
            out->timed_out = !stop_signal;
            harness_stop(h, out);
            break;
        }
        const int answered = harness_read_reply(o, h, g, buf, sizeof buf, &got, "done ", 1);
        if (answered < 0) { /* the harness died */
            harness_stop(h, out);
            break;
        }
        if (answered) {
            out->exited = 1;
            out->status = 0;
            out->isolated = g->isolated;
            break;
        }
    }
    out->seconds = wall_seconds() - start;
}

/* ------------------------------------------------------------------------------------------ */
/* The next lab's harness, started ahead                                                       */

#define AHEAD_WAIT_S 60.0 /* a harness not ready after this long is broken: its lab starts its own */

/* Stop the harness started ahead (not ready in time, or not needed). */
static void ahead_drop(void)
{
    if (ahead.h.pid > 0)
        harness_stop(&ahead.h, NULL);
    memset(&ahead, 0, sizeof ahead);
}

/* Start the harness of `lab`, the next to be graded, while this one is: only for a lab whose
 * build is whole (any other has no check to run). */
static void ahead_start(const options *o, const lab_info *lab, lab_build build)
{
    ahead_drop();
    const char *off = getenv("GRADER_AHEAD"); /* =0: each lab starts its own (an A/B switch) */
    if (!lab || build != LAB_BUILT || stop_signal || (off && !strcmp(off, "0")))
        return;
    if (harness_start(o, lab, &ahead.h, 1) == 0)
        ahead.lab = lab;
    else
        memset(&ahead, 0, sizeof ahead);
}

/* Before a speed check: the harness started ahead has said "ready" (its greeting read on the
 * way), so that nothing of its start runs beside a timed call; or it is stopped, and its lab
 * starts its own as any harness starts. */
static void ahead_wait(const options *o)
{
    char buf[RECORD_MAX_LINE];
    size_t got = 0;
    const double start = wall_seconds();
    while (ahead.h.pid > 0 && !ahead.ready) {
        const double left = AHEAD_WAIT_S - (wall_seconds() - start);
        struct pollfd pf = {ahead.h.reply, POLLIN, 0};
        const int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR && !stop_signal)
            continue;
        /* (nothing follows "ready" before a command: nothing read is lost) */
        const int ready =
            r > 0 ? harness_read_reply(o, &ahead.h, &ahead.g, buf, sizeof buf, &got, "ready", 0)
                  : -1;
        if (ready < 0) { /* not ready in time, or it ended */
            ahead_drop();
            return;
        }
        ahead.ready = ready;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Grading                                                                                     */

/* The programs on the GPU as the last lab ended, for the next lab's start (lab_open) */
static char neighbours_at_close[2048];
static int neighbours_at_close_valid;

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
/* The WHERE line                                                                              */

/* Where make explain's renderer lies (explain.awk with the readers it uses), and each lab's
 * counter table (grader/labs/NN-name/explain.tsv). */
#define WHERE_TOOLS "grader/feedback"
#define WHERE_TABLES "grader/labs"
/* An emulated process's resident memory, at most (as make explain's): twice the emulated
 * device's 2 GiB, where one call at the emulator's size needs a few hundred MiB. */
#define WHERE_MEM_MIB 4096
/* AddressSanitizer's quarantine in the WHERE count's processes, MiB (its default is 256): the
 * count needs no use-after-free detection, the checks having run the same code with the whole
 * quarantine, and the emulator's counting frees much: with the default, the allocator's churn
 * took over a third of the count (lab 05's: 4.0 CPU-seconds, 2.5 with 16 MiB). */
#define WHERE_QUARANTINE_MIB 16
/* The longest a fault's run on the CPU emulator may take (check_fault_rerun), seconds */
#define FAULT_RERUN_S 120

/* Run argv (no shell) with stdin from in_path (NULL: /dev/null), stdout and stderr to out_path
 * and err_path (truncated; err_path appended to when `append_err`), `env` (NAME=value strings, NULL-ended)
 * added; emulated: in the harness's view of its own (sandbox_harness_view), with a TMPDIR of
 * its own that this process removes when it ends (its workers' scratch folders lie there where
 * namespaces are refused, and a harness killed cannot remove them: as harness_start's). Waits
 * at most `left` seconds, then kills it whole. Returns its wait status, -1 if it could not be
 * started, -2 if it ran out of time. */
static int run_counted(char *const argv[], char *const env[], const char *in_path,
                       const char *out_path, const char *err_path, int append_err, int emulated,
                       double left)
{
    const double start = wall_seconds();
    char tmp[PATH_MAX] = "";
    if (emulated)
        scratch_make(tmp, sizeof tmp, "grader-run");
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = stop_fork(SIGKILL); /* its own group: killed whole on a stop or a timeout */
    if (pid < 0) {
        scratch_remove(tmp);
        return -1;
    }
    if (pid == 0) {
        if (tmp[0])
            setenv("TMPDIR", tmp, 1);
        const int in = open(in_path ? in_path : "/dev/null", O_RDONLY | O_CLOEXEC),
                  out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
                  err = open(err_path, O_WRONLY | O_CREAT | O_CLOEXEC | (append_err ? O_APPEND : O_TRUNC), 0644);
        if (in < 0 || out < 0 || err < 0)
            _exit(127);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        for (int i = 0; env && env[i]; i++)
            putenv(env[i]);
        if (emulated)
            sandbox_harness_view(1);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0, done = 0;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            done = r == pid;
            break;
        }
        if (wall_seconds() - start > left)
            break;
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    if (!done) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    stop_forget(pid); /* (no sweep: the lab's harness is still running; the sandbox ends its own) */
    scratch_remove(tmp); /* its workers died with it (PDEATHSIG): nothing writes there any more */
    return done ? status : -2;
}

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

/* One lab's WHERE count: its files, all under the report folder (logs). */
typedef struct where_files {
    char folder[96];      /* the lab's folder name, NN-name */
    char dir[1024];       /* <logs>/<lab>.where: the counts and what the processes printed */
    char line[1100];      /* <logs>/<lab>.where.txt: the line */
    char log[1100];       /* <logs>/<lab>.where.log: why there is none */
    char counts[1100], sections[1100], harness_log[1100], workers[1100]; /* in dir */
    char estimate[1100];  /* in dir: the speed estimate of each speed check (estimate.h) */
} where_files;

/* The environment of the lab's emulated harness (the WHERE count, a fault's rerun) into env
 * (NULL-ended, its strings in asan and sms_env): its address sanitizer held to WHERE_MEM_MIB
 * and, on a GPU, the emulated device given this GPU's SM count, so that grids sized by it, and
 * their waves, are this GPU's (make explain's CUDA_EMU_SMS). */
static void emu_env(const options *o, const record *dev, char asan[256], char sms_env[32],
                    char *env[3])
{
    const char *prior = getenv("ASAN_OPTIONS");
    snprintf(asan, 256, "ASAN_OPTIONS=%s%shard_rss_limit_mb=%d:detect_leaks=0",
             prior ? prior : "", prior && *prior ? ":" : "", WHERE_MEM_MIB);
    sms_env[0] = 0;
    double sms = 0; /* the harness's greeting's, a number */
    if (record_get_num(dev, "sms", &sms) == 0 && sms >= 1 && sms < 1e6 && strcmp(o->mode, "emu"))
        snprintf(sms_env, 32, "CUDA_EMU_SMS=%d", (int)sms);
    env[0] = asan, env[1] = sms_env[0] ? sms_env : NULL, env[2] = NULL;
}

/* What the emulated build's workers never see: grading's places, with the emulated build's
 * folders in place of the graded build's. */
static sandbox_places emu_places(const options *o)
{
    sandbox_places places = o->hidden;
    places.labdir = o->where_labdir;
    places.student_objs = o->where_student_objs;
    return places;
}

/* Count one call of the student's code and one of the reference's per speed problem on the CPU
 * emulator: the lab's emulated harness, with isolation on, runs each in a sandboxed worker under
 * grading's whole policy (it refuses to count where it cannot isolate), and copies the
 * emulator's counts into w->counts as data (grader/run/profile_trusted.cu), its sections
 * to w->sections. Returns 0, -2 when `left` seconds ran out, else -1 with the reason in w->log. */
static int where_count(const options *o, const lab_info *lab, const record *dev,
                       const where_files *w, double left)
{
    char harness[1024], reference[1024], student[1024];
    snprintf(harness, sizeof harness, "%s/%s/harness", o->where_labdir, lab->name);
    snprintf(reference, sizeof reference, "%s/%s/reference.so", o->where_labdir, lab->name);
    snprintf(student, sizeof student, "%s/%s/student.so", o->where_student_objs, lab->name);
    if (access(harness, X_OK) != 0 || access(reference, R_OK) != 0 || access(student, R_OK) != 0) {
        /* make built it beside the GPU's: its build log (the start of w->log) says why not */
        where_failed(w->log, "the CPU emulator's build of this lab is not there (the lines above "
                     "say why)", NULL);
        return -1;
    }
    char asan[256], sms_env[32], *env[3];
    emu_env(o, dev, asan, sms_env, env);
    const size_t asan_len = strlen(asan);
    snprintf(asan + asan_len, sizeof asan - asan_len, ":quarantine_size_mb=%d",
             WHERE_QUARANTINE_MIB);
    /* With no GPU, the GPU the speed is estimated for (GPU_PROFILE, a T4 unset: estimate.h) */
    if (!strcmp(o->mode, "emu") && estimate_gpu()) {
        snprintf(sms_env, sizeof sms_env, "CUDA_EMU_SMS=%d", estimate_gpu()->sm_count);
        env[1] = sms_env;
    }
    const sandbox_places places = emu_places(o);
    char *argv[64];
    int n = 0;
    argv[n++] = harness, argv[n++] = "--profile", argv[n++] = "--isolation", argv[n++] = "on";
    argv[n++] = "--counts", argv[n++] = (char *)w->counts, argv[n++] = "--worker-log";
    argv[n++] = (char *)w->workers, argv[n++] = "--worker", argv[n++] = (char *)o->where_worker;
    argv[n++] = "--student", argv[n++] = student, argv[n++] = "--reference", argv[n++] = reference;
    /* the reference's counts, kept beside its emulated object for the gradings that follow */
    char kept[1100];
    snprintf(kept, sizeof kept, "%s/%s/reference.counts", o->where_labdir, lab->name);
    argv[n++] = "--reference-counts", argv[n++] = kept;
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
static int where_render(const options *o, const lab_info *lab, const where_files *w, double left)
{
    char source[1024], ref_source[1024], shown[1024], headers[512], yours[1100], ref_copy[1100],
        v[10][1300];
    snprintf(source, sizeof source, "%s/%s/source.cu", o->where_student_objs, lab->name);
    snprintf(ref_source, sizeof ref_source, "%s/%s/%s.cu", o->hidden.solutions, w->folder, lab->name);
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
    snprintf(v[7], sizeof v[7], "ref_name=%s%s", has_ref ? lab->name : "", has_ref ? ".cu" : "");
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

/* The WHERE line of a lab: the place in the student's file that costs the most against the
 * lesson, from the CPU emulator's counts (what make explain counts, down to one line:
 * where_count, then where_render, in a process of this program's own). Help, not grading: the
 * whole run's hints share o->where_budget seconds of waiting, and a hint that cannot be had
 * says where to look instead.
 *
 * The count starts once the lab's first check has passed, beside the checks that follow, at
 * the lowest CPU priority (it runs on the CPUs, and under the sandbox's worker policy: the GPU
 * sees none of it), since it can take as long as checking and timing together do (lab 07's
 * skeleton: a second or two of emulated barriers). On a GPU, a speed check short of its mark
 * then waits only for what is left of it, and a lab whose speed passed (or whose code failed
 * a check) stops it unread; under the emulator, which times nothing and wants the line
 * whenever every correctness check passes, a lab whose code failed a check stops it unread.
 * The waiting is what the budget counts. */
static double where_spent;

typedef struct where_job {
    pid_t pid;       /* the count running, or 0 */
    double started;  /* when */
    where_files w;   /* its files */
    char tmp[PATH_MAX]; /* its TMPDIR (scratch_make's): the harness it runs makes its own
                         * there, which dies unremoved with it when it is killed */
} where_job;

static void where_start(const options *o, const lab_info *lab, const record *dev, int nice_it,
                        where_job *j)
{
    memset(j, 0, sizeof *j);
    where_files *w = &j->w;
    lab_folder(lab, w->folder, sizeof w->folder);
    snprintf(w->dir, sizeof w->dir, "%s/%s.where", o->logs, lab->name);
    snprintf(w->line, sizeof w->line, "%s/%s.where.txt", o->logs, lab->name);
    snprintf(w->log, sizeof w->log, "%s/%s.where.log", o->logs, lab->name);
    snprintf(w->counts, sizeof w->counts, "%s/counts.tsv", w->dir);
    snprintf(w->sections, sizeof w->sections, "%s/sections.txt", w->dir);
    snprintf(w->harness_log, sizeof w->harness_log, "%s/harness.log", w->dir);
    snprintf(w->workers, sizeof w->workers, "%s/workers.log", w->dir);
    snprintf(w->estimate, sizeof w->estimate, "%s/estimate.tsv", w->dir);
    mkdir(w->dir, 0755);
    unlink(w->counts);
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
        if (status == 0 && !strcmp(o->mode, "emu") &&
            estimate_command_make(&est, WHERE_TOOLS, table, w->sections, w->counts) == 0)
            run_counted(est.argv, (char *[]){"LC_ALL=C", NULL}, NULL, w->estimate, w->log, 1, 0,
                        1e9);
        _exit(status == 0 ? 0 : 1);
    }
    j->pid = pid;
}

/* A count started beside the checks and not wanted (the lab's speed passed, or a check failed):
 * stopped. */
static void where_drop(where_job *j)
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
static int where_finish(const options *o, const lab_info *lab, where_job *j, char *line,
                        size_t len)
{
    line[0] = 0;
    if (j->pid <= 0)
        return 1;
    const double start = wall_seconds(), left = o->where_budget - where_spent;
    int status = 0, done = 0;
    while (!done) {
        const pid_t r = waitpid(j->pid, &status, WNOHANG);
        if (r < 0 && errno == ECHILD) { /* reaped by a sweep (a harness restart): gone */
            stop_forget(j->pid);
            j->pid = 0;
            scratch_remove(j->tmp);
            return 1;
        }
        if (r == j->pid || (r < 0 && errno != EINTR)) {
            done = r == j->pid;
            break;
        }
        if (wall_seconds() - start > left)
            break;
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    if (!done) {
        kill(-j->pid, SIGKILL);
        waitpid(j->pid, &status, 0);
    }
    stop_forget(j->pid); /* (no sweep: the lab's harness is still running; the sandbox ends its own) */
    j->pid = 0;
    scratch_remove(j->tmp);
    where_spent += wall_seconds() - start;
    if (done && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        return 1; /* not our doing */
    if (!done) {
        snprintf(line, len, "not counted in time (the run's %.0f s for these hints ran out): "
                 "make explain LAB=%s counts every line of yours", o->where_budget, lab->number);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(line, len, "the CPU emulator could not count your code (%.600s says why); make "
                 "explain LAB=%s says it too", j->w.log, lab->number);
        return 0;
    }
    FILE *f = fopen(j->w.line, "r");
    if (f && fgets(line, (int)len, f))
        line[strcspn(line, "\n")] = 0;
    if (f)
        fclose(f);
    if (!line[0] && strcmp(o->mode, "emu")) /* untimed, and nothing to point at: no line */
        snprintf(line, len, "the CPU emulator's counts show nothing far from the ideal in your "
                 "code at its small size; make explain LAB=%s shows every counter and what it "
                 "does not count", lab->number);
    return 0;
}

/* The WHERE line, from the count started beside the checks (*j, if running) or from one
 * started now. */
static void where_hint(const options *o, const lab_info *lab, const record *dev, where_job *j,
                       char *line, size_t len)
{
    line[0] = 0;
    if (!o->where)
        return;
    if (o->where_budget - where_spent < 1) {
        where_drop(j);
        snprintf(line, len, "not counted this time (the run's %.0f s for these hints are spent): "
                 "make explain LAB=%s counts every line of yours", o->where_budget, lab->number);
        return;
    }
    if (j->pid > 0 && !where_finish(o, lab, j, line, len))
        return;
    where_start(o, lab, dev, 0, j);
    where_finish(o, lab, j, line, len);
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
    harness_proc h;
    greeting g;
    check_outcome *outcomes;  /* per check so far */
    check_score *scores;
    lab_score score;
    int where_done;           /* the lab's WHERE hint was asked for */
    double where_s;           /* the WHERE hint's wall time (its own entry in results.json) */
    where_job where_early;    /* the count started beside the checks (where_start) */
    int fault_done;           /* a fault of the lab's ran once more on the emulator */
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
    if (ahead.lab == lab && ahead.h.pid > 0 && waitpid(ahead.h.pid, NULL, WNOHANG) != 0)
        ahead_drop(); /* it ended on its own (or was reaped): the lab starts its own */
    if (ahead.lab == lab && ahead.h.pid > 0) { /* its harness, started during the lab before */
        r->h = ahead.h;
        r->g = ahead.g;
        memset(&ahead, 0, sizeof ahead);
    }
    lab_harness = &r->h;
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
    r->missing = build == LAB_STUDENT_FAILED && access(r->expected, R_OK) != 0;
    r->b = (build_report){build, r->missing, r->refusal, build_log, r->expected};
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
        o->where && !r->where_done && !r->where_early.pid && o->where_budget - where_spent >= 1 &&
        r->g.heard)
        where_start(o, lab, &r->g.device, 1, &r->where_early);
    snprintf(results, sizeof results, "%s/%s.%d.records", o->logs, lab->name, i);
    snprintf(log_path, len, "%s/%s.%d.log", o->logs, lab->name, i);
    unlink(results);
    unlink(log_path);
    int link = -1;
    if (c->kind == CHECK_SPEED) {
        ahead_wait(o);
        link = host_link_lock(o, lab);
    }
    harness_check(o, lab, &r->h, &r->g, i, r->rules.threshold, r->timeout, results, log_path, out);
    if (link >= 0)
        close(link); /* (the lock goes with it) */
    read_records(results, l);
    decide_check(lab, c, r->rules.threshold, out, l, d);
    check_refused_at_run(o, r, l, log_path, d);
    if (r->g.heard)
        label_run(&r->g, t);
    if (r->g.heard && !r->g.isolated && o->require_isolation && !stop_signal) {
        terminal_unisolated(r->g.detail);
        memset(d, 0, sizeof *d);
        d->v = VERDICT_ERROR;
        snprintf(d->message, sizeof d->message, "not run: student code cannot be isolated "
                 "here (%s)", r->g.detail);
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
        where_hint(o, r->lab, &r->g.device, &r->where_early, where, len);
        r->where_s = wall_seconds() - waited;
        r->where_done = 1;
    }
}

/* A check in which the student's code faulted (fault_rerun_kind) on a GPU, which says only
 * which error ended the call: the check run once more on the CPU emulator's build, alone, in
 * the sandbox (grader/feedback/fault_rerun.h), for its report at the student's line, block and
 * thread, which the check's report shows (terminal_check). Once per lab: a later fault of the
 * lab gets a note naming the first. Help, never a verdict. Into f ("" fields: nothing to say). */
static void check_fault_rerun(const options *o, lab_run *r, int i, const check_decision *d,
                              const record_list *l, fault_report *f)
{
    memset(f, 0, sizeof *f);
    const char *kind = o->fault_rerun && d->v == VERDICT_FAIL ? fault_rerun_kind(l) : NULL;
    if (!kind || (o->fault_rerun == 1 && strcmp(o->mode, "gpu")) || stop_signal)
        return;
    if (r->fault_done) {
        snprintf(f->note, sizeof f->note, "(the CPU emulator's run of the lab's first fault "
                 "above says where)");
        return;
    }
    r->fault_done = 1;
    static fault_rerun run; /* (large: its paths) */
    memset(&run, 0, sizeof run);
    char harness[1024], reference[1024], student[1024], why[300];
    snprintf(harness, sizeof harness, "%s/%s/harness", o->where_labdir, r->lab->name);
    snprintf(reference, sizeof reference, "%s/%s/reference.so", o->where_labdir, r->lab->name);
    snprintf(student, sizeof student, "%s/%s/student.so", o->where_student_objs, r->lab->name);
    run.harness = harness, run.worker = o->where_worker, run.student = student;
    run.reference = reference, run.logs = o->logs, run.lab = r->lab->name, run.check = i;
    run.seed = o->seed;
    run.timeout_s = r->timeout * 5 < FAULT_RERUN_S ? r->timeout * 5 : FAULT_RERUN_S;
    run.places = emu_places(o);
    if (fault_rerun_prepare(&run, why, sizeof why) != 0) {
        snprintf(f->note, sizeof f->note, "where: not found on the CPU emulator: %s", why);
        return;
    }
    char asan[256], sms_env[32], *env[3];
    emu_env(o, &r->g.device, asan, sms_env, env);
    const double start = wall_seconds();
    const int status = run_counted(run.argv, env, run.input, run.replies, run.harness_log, 0, 1,
                                   run.timeout_s + 10);
    unlink(run.input); /* (it holds the seed; the logs folder is hidden from student code too) */
    unlink(run.replies);
    snprintf(f->log, sizeof f->log, "%s", run.log);
    f->seconds = wall_seconds() - start;
    f->timed_out = status == -2;
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
    /* with no GPU: the speed estimated on a named GPU from the WHERE count (estimate.h) */
    if (c->kind == CHECK_SPEED && d.v == VERDICT_SKIP && !strcmp(o->mode, "emu") &&
        r->where_done && r->where_early.w.estimate[0])
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
    const check_report rep = {r->lab, c, run_name, name, &d, s, &out, &l, log_path, where,
                              &r->g.device, r->rules.threshold, estimate, &fault};
    terminal_check(&rep);
    results_check(w, &rep);
    free_records(&l);
}

/* The lab's end: its harness and WHERE count stopped, its score reported and added to t. */
static void lab_close(const options *o, lab_run *r, char *neighbours, size_t len, json_writer *w,
                      totals *t)
{
    where_drop(&r->where_early); /* the lab's speed passed, or a correctness check failed: its
                                  * count is not needed */
    harness_stop(&r->h, NULL);
    record_free(&r->g.device);
    if (r->refused_at_run) /* as a build's refusal: the lab earns nothing under emulation */
        r->score.earned = 0;
    const char *refused = r->refused_at_run ? r->refusal : "";
    int others = 0;
    if (!strcmp(o->mode, "gpu")) {
        gpu_neighbours(neighbours_at_close, sizeof neighbours_at_close, NULL);
        neighbours_at_close_valid = 1;
        others = gpu_neighbours_merge(neighbours, len, neighbours_at_close) > 0;
    }
    terminal_lab_end(r->lab, refused, others ? neighbours : NULL, &r->score);
    results_lab_end(w, refused, neighbours, &r->score, wall_seconds() - r->start, r->where_s);
    t->earned += r->score.earned;
    t->possible += r->score.possible;
    t->failed += r->score.failed;
    t->not_run += r->score.not_run;
    free(r->outcomes);
    free(r->scores);
}

/* Lab `lab` graded; `next` (NULL: none), the lab graded after it, has its harness started
 * meanwhile (ahead_start). */
static void grade_lab(const options *o, const config *cfg, const lab_info *lab, lab_build build,
                      const char *build_log, const lab_info *next, lab_build next_build,
                      json_writer *w, totals *t)
{
    static lab_run r; /* (large: its harness's and its WHERE count's paths) */
    char neighbours[2048];
    lab_open(o, cfg, lab, build, build_log, w, &r, neighbours, sizeof neighbours);
    ahead_start(o, next, next_build);
    for (int i = 0; i < lab->n_checks; i++)
        grade_check(o, &r, i, w, t);
    lab_close(o, &r, neighbours, sizeof neighbours, w, t);
}

/* ------------------------------------------------------------------------------------------ */
/* Bench                                                                                       */

/* The lab's bench run: its harness with --bench, the lab's variants (--variants) named, under a
 * 1200 s limit, its records into l. 0, or 1 with what went wrong printed. */
static int bench_run(const options *o, const lab_info *lab, record_list *l)
{
    char exe[512], ref[512], worker_arg[512], results[512], log_path[512];
    snprintf(exe, sizeof exe, "%s/%s/harness", o->labdir, lab->name);
    snprintf(ref, sizeof ref, "%s/%s/reference.so", o->labdir, lab->name);
    snprintf(worker_arg, sizeof worker_arg, "%s", o->worker);
    snprintf(results, sizeof results, "%s/%s.bench.records", o->logs, lab->name);
    snprintf(log_path, sizeof log_path, "%s/%s.bench.log", o->logs, lab->name);
    unlink(results);
    unlink(log_path);
    char *argv[64];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "--bench";
    argv[n++] = "--worker";
    argv[n++] = worker_arg;
    argv[n++] = "--reference";
    argv[n++] = ref;
    argv[n++] = "--cap";
    argv[n++] = "20";
    argv[n++] = "--results";
    argv[n++] = results;
    char *copy = NULL;
    size_t name_len = strlen(lab->name);
    for (int i = 0; i < o->n_variants; i++)
        if (!strncmp(o->variants[i], lab->name, name_len) && o->variants[i][name_len] == ':') {
            copy = strdup(o->variants[i] + name_len + 1);
            char *save = NULL;
            for (char *v = strtok_r(copy, " ", &save); v && n < 60; v = strtok_r(NULL, " ", &save)) {
                argv[n++] = "--variant";
                argv[n++] = v;
            }
        }
    argv[n] = NULL;
    child_outcome out;
    run_child(argv, log_path, 1200, &out);
    free(copy);
    read_records(results, l);
    check_decision d;
    memset(&d, 0, sizeof d);
    if (decide_process(lab, &out, l, &d)) {
        printf("%s %-12s %s\n", lab->number, lab->name, d.message[0] ? d.message : "failed");
        print_log_tail(log_path, 12);
        return 1;
    }
    return 0;
}

/* One row of the bench table (r: an in-process or computed "bench" record), printed and
 * written to tsv (or NULL): ms, rate and the ratio to the reference on each path, from the
 * lab's other records (l). The two paths' ratios must agree (the isolated path is what
 * grading uses). */
static void bench_row(const lab_info *lab, const record_list *l, const record *r, FILE *tsv)
{
    const char *task = record_get(r, "task"), *variant = record_get(r, "variant");
    /* The bench times student code in the harness's process, which can then write any
     * record: its text is shown as data (common/text.h), on this row alone. */
    char task_s[128], size_s[128], variant_s[128], unit_s[32];
    text_visible(task_s, sizeof task_s, task, 0);
    text_visible(size_s, sizeof size_s, record_get(r, "size"), 0);
    text_visible(variant_s, sizeof variant_s, variant, 0);
    text_visible(unit_s, sizeof unit_s, record_get(r, "unit"), 0);
    double ms = 0, rate = 0, ref_ms = 0, ceil_ms = 0, iso_ms = 0, iso_ref = 0;
    record_get_num(r, "ms", &ms);
    record_get_num(r, "rate", &rate);
    for (int j = 0; j < l->n; j++) {
        const record *q = &l->rec[j];
        double qi;
        const char *qp = record_get(q, "path");
        if (strcmp(q->type, "bench") || !record_get(q, "task") || !record_get(q, "variant") ||
            strcmp(record_get(q, "task"), task) || record_get_num(q, "impl", &qi) || !qp)
            continue;
        const int inproc = !strcmp(qp, "in-process events");
        if (qi == 1 && inproc)
            record_get_num(q, "ms", &ref_ms);
        if (qi == 1 && !strcmp(qp, "isolated host clock"))
            record_get_num(q, "ms", &iso_ref);
        if (qi == 2)
            record_get_num(q, "ms", &ceil_ms);
        if (!strcmp(qp, "isolated host clock") && !strcmp(record_get(q, "variant"), variant))
            record_get_num(q, "ms", &iso_ms);
    }
    const double x_ref = ref_ms > 0 ? ref_ms / ms : 0, x_ceil = ceil_ms > 0 ? ceil_ms / ms : 0;
    const double iso_x = iso_ms > 0 && iso_ref > 0 ? iso_ref / iso_ms : 0;
    printf("%s\t%-12s\t%-12s\t%-22s\t%-34s\t%9.4f\t%9.1f %-9s\t%6.3f\t%6.3f", lab->number,
           lab->name, task_s, size_s, variant_s, ms, rate, unit_s, x_ref, x_ceil);
    if (iso_x > 0)
        printf("\tisolated %6.3f (%+.1f%%)", iso_x, 100 * (iso_x / x_ref - 1));
    printf("\n");
    if (tsv)
        fprintf(tsv, "%s\t%s\t%s\t%s\t%.5f\t%.2f\t%s\t%.4f\t%.4f\n", lab->name, task_s,
                size_s, variant_s, ms, rate, unit_s, x_ref, x_ceil);
}

/* make bench, one lab: its rows (bench_row), printed and written to <logs>/<lab>.tsv for the
 * lessons' tables and charts. 0, or 1 if it did not build or run. */
static int bench_lab(const options *o, const lab_info *lab)
{
    char build_log[1024];
    const lab_build build = built_lab(o, lab, build_log, sizeof build_log);
    if (build != LAB_BUILT) {
        printf("%s %-12s %s (%s)\n", lab->number, lab->name,
               build == LAB_STUDENT_FAILED ? "your file did not build"
               : build == LAB_REFUSED ? "the CPU emulator cannot run a feature of your file"
               : build == LAB_STEPS_FAILED ? "a ladder rung did not build"
               : build == LAB_NOT_BUILT ? "not built" : "the lab's own pieces did not build",
               build_log);
        if (build_log[0] && access(build_log, R_OK) == 0)
            print_build_errors(build_log);
        return 1;
    }
    record_list l;
    memset(&l, 0, sizeof l);
    if (bench_run(o, lab, &l)) {
        free_records(&l);
        return 1;
    }
    const record *dev = find_record(&l, "device", 0);
    if (dev) {
        double mhz = 0;
        record_get_num(dev, "measured_clock_mhz", &mhz);
        char name[256];
        text_visible(name, sizeof name, record_get(dev, "name") ? record_get(dev, "name") : "?", 0);
        printf("%s %-12s on %s, SM clock under load %.0f MHz\n", lab->number, lab->name, name, mhz);
    }
    char tsv_path[600];
    snprintf(tsv_path, sizeof tsv_path, "%s/%s.tsv", o->logs, lab->name);
    FILE *tsv = fopen(tsv_path, "w");
    if (tsv)
        fprintf(tsv, "lab\ttask\tsize\tvariant\tms\trate\tunit\tx_ref\tx_ceil\n");
    for (int i = 0; i < l.n; i++) {
        const record *r = &l.rec[i];
        const char *path = record_get(r, "path");
        if (strcmp(r->type, "bench") || !path ||
            (strcmp(path, "in-process events") && strcmp(path, "computed")))
            continue;
        if (!record_get(r, "task") || !record_get(r, "variant") || !record_get(r, "size") ||
            !record_get(r, "unit"))
            continue;
        bench_row(lab, &l, r, tsv);
    }
    if (tsv)
        fclose(tsv);
    free_records(&l);
    return 0;
}

/* make bench: the table's heading, then each lab's rows. Returns main's exit status. */
static int bench_all(const options *o, const lab_info *const *labs, int n)
{
    printf("#\tlab\ttask\tsize\tvariant\tms per call (events)\trate\tx ref\tx ceil\t"
           "x ref through the isolated path (difference)\n");
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad |= bench_lab(o, labs[i]);
    remove_built_dir(o);
    return bad ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                        */

static void usage(void)
{
    fprintf(stderr, "usage: grade-driver --labdir DIR --student-dir DIR --worker EXE --mode gpu|emu\n"
                    "                    [--lab NAME,...] [--seed S] [--student DIR] [--isolation on|off]\n"
                    "                    [--built DIR] [--json FILE] [--logs DIR] [--hide DIR ...]\n"
                    "                    [--where-budget S [--where-labdir DIR --where-student-dir DIR\n"
                    "                    --where-worker EXE]] [--fault-rerun gpu|always|off]\n"
                    "                    [--bench --variants 'LAB:NAME=SO ...'] [--student-files 'F ...']\n"
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
        {"student-files", required_argument, NULL, 'F'}, {"status-of", required_argument, NULL, 'Z'},
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
        case 'F': o.make_files = optarg; break;
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

/* The Makefile builds each lab from the file its student_src names; reports and "not found"
 * speak of lab_student_file's. They must be one file: a lab whose folder does not match its
 * table's number and name stops here, before anything is graded. */
static void check_make_files(const options *o)
{
    if (!o->make_files)
        return;
    for (int i = 0; i < n_all_labs; i++) {
        char want[1024];
        lab_student_file(o->student, all_labs[i], want, sizeof want);
        const size_t wl = strlen(want);
        int found = 0;
        for (const char *p = o->make_files; *p && !found; p += strcspn(p, " ")) {
            p += strspn(p, " ");
            found = strncmp(p, want, wl) == 0 && (p[wl] == ' ' || p[wl] == 0);
        }
        if (!found)
            fatal("lab %s %s: the Makefile builds none of its files from %s (it builds: %s); the "
                  "lab's folder must be grader/labs/%s-%s, as its table.c says", all_labs[i]->number,
                  all_labs[i]->name, want, o->make_files, all_labs[i]->number, all_labs[i]->name);
    }
}

/* The course config in force: grader/course.conf (or GRADER_CONFIG), then GRADER_SET. */
static void load_config(config *cfg)
{
    char err[512];
    const char *path = getenv("GRADER_CONFIG");
    if (!path && access("grader/course.conf", R_OK) == 0)
        path = "grader/course.conf";
    if (path && config_parse_file(cfg, path, err, sizeof err))
        fatal("%s", err);
    const char *set = getenv("GRADER_SET");
    if (set && config_parse_list(cfg, set, "GRADER_SET", err, sizeof err))
        fatal("%s", err);
}

/* grader/run/grade.sh: the exit status a results.json records (0, 1 or 2), read with the JSON
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
    for (int i = 0; i < n; i++)
        grade_lab(o, &cfg, labs[i], built[i], build_logs[i], i + 1 < n ? labs[i + 1] : NULL,
                  i + 1 < n ? built[i + 1] : LAB_NOT_BUILT, &rf.w, &t);
    ahead_drop();
    json_array_end(&rf.w);
    const int status = t.failed ? 1 : t.not_run ? 2 : 0;
    results_close(&rf, &t, status, stop_signal != 0);
    terminal_run_end(&t, refused_unisolated, status, o->json);
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
    check_make_files(&o);
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
    /* What the build step (make, before this program) built and vetted: no student code has
     * run before this point. */
    lab_build built[64];
    static char build_logs[64][1024];
    for (int i = 0; i < n; i++)
        built[i] = built_lab(&o, labs[i], build_logs[i], sizeof build_logs[i]);
    remove_built_dir(&o);
    return grade_all(&o, labs, n, built, build_logs);
}
