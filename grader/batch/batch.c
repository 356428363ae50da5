/* batch.c - grade a folder of submissions into one gradebook, safely and resumably.
 *
 *   grade-batch grade   SUBMISSIONS=dir [OUT=dir] [LAB=..] [SEED=..] [EMU=1] [GPUS=all|0,1]
 *                       [JOBS=n] [WAIT=1] [TASK=k TASKS=n]   grade, then write the gradebook
 *   grade-batch merge   SUBMISSIONS=dir [OUT=dir] ...    the gradebook from results on disk
 *   grade-batch prepare SUBMISSIONS=dir [OUT=dir] ...    check everything, fix the seed, count
 *   grade-batch export  RESULTS=results.json NAME=student DEST=dir   one student's exports
 *
 * Run it through `make grade-batch` (grader/batch/batch.mk) or grader/slurm/submit. This file
 * is the program: its settings, the labs and course config in force, the seed, the lock, the
 * output folder, and main's order of work; batch.h names the files that do the rest.
 *
 * Names are data. A student's folder name is read from the directory and never reaches a
 * shell, make or a command line: each submission is copied (its lab files only, read with
 * O_NOFOLLOW: scan.c) into OUT/work/<id>/tree, where <id> is a hash of the name, and graded
 * there by make grade's build and then the driver, started directly with generated paths only
 * (grade_one.c). A submission
 * holding a symbolic link or a special file anywhere (but the folders scan.c's never_work
 * leaves out: .git, a checkout's build output), or a lab file over FILE_CAP, is refused with
 * the reason, and appears in the gradebook like everyone else.
 *
 * Resume. Each student's outcome is OUT/students/<id>/record.json, written last and
 * atomically (temporary file, fsync, rename), with a fingerprint of everything the grade
 * depends on (scan.c). A record whose fingerprint matches is final; anything else is graded
 * again (gradebook.c). Nothing written to the gradebook depends on the time, so a run that was
 * killed and resumed writes the same bytes as one that was not. OUT/seed keeps the seed of the
 * first run, so the same command, even without SEED=, resumes with it.
 *
 * One run per OUT: an exclusive flock on OUT/.lock (shared for the tasks of a Slurm array).
 *
 * Workers. One per GPU (GPUS=all: every GPU nvidia-smi lists, each worker with its own
 * CUDA_VISIBLE_DEVICES, its own tree and GRADE_DIR), or JOBS=n without GPUS (the emulator:
 * one GPU is never shared by two students being timed). Workers grade side by side. Each
 * student is prepared first (its tree and objects built on the CPUs: the preparer) and then
 * graded (the keeper), in the order grader/batch/schedule.h decides: one grade per GPU at a
 * time, the next student prepared beside it (workers.c). Each grade runs in a process group of
 * its own under a keeper process that kills the group when the batch dies (a parent-death
 * signal), so a killed batch leaves no grading behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "../lab.h"
#include "../decide/score.h"
#include "../plan/config.h"
#include "../plan/lab_select.h"
#include "../wire/stop.h"
#include "batch.h"

static batch_settings opts = {.cmd = "grade", .out = "build/batch", .lab = "", .tasks = 0};
static batch_state batch;

static int parse_int_arg(const char *key, const char *v, int lo, int hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        die("%s=%s is not a whole number from %d to %d", key, v, lo, hi);
    return (int)x;
}

static void parse_args(int argc, char **argv)
{
    int i = 1;
    if (argc > 1 && !strchr(argv[1], '='))
        opts.cmd = argv[i++];
    if (strcmp(opts.cmd, "grade") && strcmp(opts.cmd, "merge") && strcmp(opts.cmd, "prepare") &&
        strcmp(opts.cmd, "export"))
        die("unknown command `%s` (grade, merge, prepare or export)", opts.cmd);
    const char *task = NULL, *tasks = NULL;
    for (; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!eq)
            die("expected KEY=value, got `%s`", a);
        const char *v = eq + 1;
        const size_t k = (size_t)(eq - a);
#define IS(name) (k == strlen(name) && !strncmp(a, name, k))
        if (IS("SUBMISSIONS")) opts.submissions = v;
        else if (IS("OUT")) opts.out = *v ? v : opts.out;
        else if (IS("LAB")) opts.lab = v;
        else if (IS("SEED")) opts.seed = *v ? v : NULL;
        else if (IS("GPUS")) opts.gpus = *v ? v : NULL;
        else if (IS("BUILD")) opts.build = *v ? v : NULL;
        else if (IS("JOBS")) opts.jobs = *v ? parse_int_arg("JOBS", v, 1, MAX_WORKERS) : 0;
        else if (IS("EMU")) opts.emu = *v && strcmp(v, "0");
        else if (IS("WAIT")) opts.wait = *v && strcmp(v, "0");
        else if (IS("ALLOW_UNISOLATED")) opts.allow_unisolated = *v && strcmp(v, "0");
        else if (IS("TASK")) task = *v ? v : NULL;
        else if (IS("TASKS")) tasks = *v ? v : NULL;
        else if (IS("RESULTS")) opts.results = v;
        else if (IS("NAME")) opts.name = v;
        else if (IS("DEST")) opts.dest = v;
        else die("unknown setting `%.*s` (SUBMISSIONS, OUT, LAB, SEED, EMU, GPUS, JOBS, WAIT, "
                 "ALLOW_UNISOLATED, BUILD, "
                 "TASK, TASKS; for export RESULTS, NAME, DEST)", (int)k, a);
#undef IS
    }
    if (!!task != !!tasks)
        die("TASK and TASKS go together (TASK=k TASKS=n grades every n-th student from the k-th)");
    if (tasks) {
        opts.tasks = parse_int_arg("TASKS", tasks, 1, 1000000);
        opts.task = parse_int_arg("TASK", task, 0, opts.tasks - 1);
    }
}

/* Paths handed to make as variables must not hold what make or a shell would interpret. */
static void require_plain_path(const char *what, const char *path)
{
    for (const char *p = path; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
            !strchr("._/+-", *p))
            die("%s `%s` has a `%c`: it is passed to make, so it may hold only letters, digits and "
                ". _ / + -", what, path, *p);
}

/* LAB= as the driver reads it (lab_select.h): batch.selected and the list handed to make grade. */
static void select_labs(void)
{
    const lab_info *labs[ROW_MAX_LABS];
    char err[1024];
    const int n = lab_list_parse(opts.lab, labs, err, sizeof err);
    if (n < 0)
        die("%s", err);
    batch.labs_arg[0] = 0;
    for (int k = 0; k < n_all_labs; k++) {
        batch.selected[k] = 0;
        for (int i = 0; i < n; i++)
            batch.selected[k] |= labs[i] == all_labs[k];
        if (batch.selected[k])
            snprintf(batch.labs_arg + strlen(batch.labs_arg), sizeof batch.labs_arg - strlen(batch.labs_arg),
                     "%s%s", batch.labs_arg[0] ? "," : "", all_labs[k]->name);
    }
}

/* The course config as the driver will read it: validated now (one clear error before any
 * student is graded), its bytes kept for the fingerprints, each lab's maximum computed. */
static void load_course_config(void)
{
    config cfg = {.n = 0};
    char err[512];
    const char *path = config_path(); /* where the driver will read it */
    size_t flen = 0;
    char *ftext = path ? read_whole(path, &flen) : NULL;
    if (path && !ftext)
        die("GRADER_CONFIG=%s cannot be read: %s", path, strerror(errno));
    if (path && config_parse_file(&cfg, path, err, sizeof err))
        die("%s", err);
    const char *set = getenv("GRADER_SET");
    if (set && config_parse_list(&cfg, set, "GRADER_SET", err, sizeof err))
        die("%s", err);
    const size_t slen = set ? strlen(set) : 0;
    batch.config_len = flen + 1 + slen;
    batch.config_text = malloc(batch.config_len + 1);
    if (!batch.config_text)
        die("out of memory");
    if (flen)
        memcpy(batch.config_text, ftext, flen);
    batch.config_text[flen] = 0;
    if (slen)
        memcpy(batch.config_text + flen + 1, set, slen);
    free(ftext);
    /* Each lab's maximum under the course config, by the driver's own rule (score.h). */
    for (int k = 0; k < n_all_labs; k++) {
        const score_rules rules = score_rules_for(&cfg, all_labs[k]);
        lab_score score;
        score_lab(all_labs[k], &rules, NULL, 0, NULL, &score);
        batch.lab_max[k] = score.possible;
    }
}

static int parse_seed(const char *text, char *out, size_t len)
{
    char *end;
    errno = 0;
    if (!text[0] || text[0] == '-' || text[0] == '+' || text[0] == ' ')
        return -1;
    unsigned long long v = strtoull(text, &end, 0);
    if (*end || errno)
        return -1;
    snprintf(out, len, "0x%llx", v);
    return 0;
}

/* SEED as given; else the one OUT/seed kept from an earlier run; else a fresh one. */
static void fix_seed(int write_it)
{
    char path[PATH_MAX + 16], kept[64] = "";
    snprintf(path, sizeof path, "%s/seed", batch.out);
    char *text = read_whole(path, NULL);
    if (text) {
        if (parse_seed(strtok(text, "\n") ? text : "", kept, sizeof kept))
            kept[0] = 0;
        free(text);
    }
    if (opts.seed) {
        if (parse_seed(opts.seed, batch.seed, sizeof batch.seed))
            die("SEED=%s is not a number from 0 to 2^64-1 (for example SEED=0x1234abcd)", opts.seed);
        if (kept[0] && strcmp(kept, batch.seed))
            printf("SEED=%s differs from this output folder's earlier seed %s: every student is "
                   "graded again.\n", batch.seed, kept);
    } else if (kept[0]) {
        snprintf(batch.seed, sizeof batch.seed, "%s", kept);
        printf("Resuming with the seed kept in %s: %s.\n", path, batch.seed);
    } else {
        unsigned long long v;
        if (getrandom(&v, sizeof v, 0) != sizeof v)
            die("getrandom: %s", strerror(errno));
        snprintf(batch.seed, sizeof batch.seed, "0x%llx", v);
    }
    if (write_it) {
        char line[48];
        snprintf(line, sizeof line, "%s\n", batch.seed);
        write_whole(path, line, strlen(line));
    }
}

/* One run per OUT. Exclusive for grade, merge and prepare; shared for the tasks of an array. */
static void take_lock(int shared)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/.lock", batch.out);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        die("cannot open the lock %s: %s", path, strerror(errno));
    const int how = shared ? LOCK_SH : LOCK_EX;
    if (flock(fd, how | LOCK_NB)) {
        if (errno != EWOULDBLOCK)
            die("cannot lock %s: %s", path, strerror(errno));
        char holder[64] = "";
        ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = 0;
        holder[strcspn(holder, "\n")] = 0;
        if (!opts.wait)
            die("another grading run holds %s (%s); it grades into the same folder. Wait for it "
                "to finish, add WAIT=1 to wait, or choose another OUT=", path,
                holder[0] ? holder : "a Slurm task");
        printf("Another grading run holds %s (%s): waiting for it.\n", path,
               holder[0] ? holder : "a Slurm task");
        fflush(stdout);
        if (flock(fd, how))
            die("cannot lock %s: %s", path, strerror(errno));
    }
    if (!shared) {
        char me[64];
        snprintf(me, sizeof me, "pid %d\n", (int)getpid());
        if (ftruncate(fd, 0) == 0 && pwrite(fd, me, strlen(me), 0) < 0)
            fprintf(stderr, "grade-batch: warning: cannot note the pid in %s\n", path);
    }
    /* fd stays open (and locked) until the process ends, however it ends. */
}

/* batch.out from OUT= (under the workbook's top folder when relative), made, and never inside the
 * submissions, where it would be graded as a student. */
static void make_output_folder(void)
{
    if (opts.out[0] == '/')
        snprintf(batch.out, sizeof batch.out, "%s", opts.out);
    else
        snprintf(batch.out, sizeof batch.out, "%s/%s", batch.root, opts.out);
    require_plain_path("OUT", batch.out);
    mkdirs(batch.out);
    char real_subs[PATH_MAX], real_out[PATH_MAX];
    if (realpath(opts.submissions, real_subs) && realpath(batch.out, real_out)) {
        const size_t n = strlen(real_subs);
        if (!strncmp(real_out, real_subs, n) && (real_out[n] == '/' || real_out[n] == 0))
            die("OUT=%s is inside SUBMISSIONS=%s: it would be graded as a student; put it elsewhere",
                batch.out, opts.submissions);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Ctrl-C, SIGTERM, SIGHUP, `timeout`, a Slurm cancel: every grading ends, no file is left
     * half-written; the records written so far are kept for the resume. */
    stop_on_signals(1000, "every grading this batch started has ended. Students graded before "
                          "the stop keep their results: the same command resumes from there.");
    parse_args(argc, argv);
    if (!strcmp(opts.cmd, "export"))
        return export_one(&opts);
    if (!getcwd(batch.root, sizeof batch.root) || access("grader/batch/pristine_skeletons.sh", X_OK))
        die("run me from the workbook's top folder (through make grade-batch)");
    if (!opts.submissions || !*opts.submissions)
        die("SUBMISSIONS= is required: the folder with one subfolder per student");
    batch.subs_fd = open(opts.submissions, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (batch.subs_fd < 0)
        die("SUBMISSIONS=%s is not a folder I can read: %s", opts.submissions, strerror(errno));
    make_output_folder();
    if (opts.build)
        require_plain_path("BUILD", opts.build);
    select_labs();
    load_course_config();
    choose_workers(&opts, &batch);
    mkdirs(batch.out);
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/students", batch.out);
    mkdirs(sub);
    snprintf(sub, sizeof sub, "%s/work", batch.out);
    mkdirs(sub);
    take_lock(opts.tasks > 0);
    fix_seed(!opts.tasks); /* array tasks read the seed `prepare` wrote; they never write it */

    load_skeletons(&batch);
    int n;
    student *list = scan_students(&opts, &batch, &n);
    if (!strcmp(opts.cmd, "prepare")) {
        char labs[sizeof batch.labs_arg];
        snprintf(labs, sizeof labs, "%s", batch.labs_arg);
        for (char *p = labs; *p; p++)
            if (*p == ',')
                *p = ' ';
        printf("students %d\nseed %s\nlabs %s\n", n, batch.seed, labs);
        return 0;
    }
    int rc = 0;
    if (!strcmp(opts.cmd, "grade")) {
        printf("Grading %d submission%s in %s (labs: %s) with hidden-case seed %s%s; %d worker%s.\n",
               n, n == 1 ? "" : "s", opts.submissions, batch.labs_arg, batch.seed,
               opts.tasks ? "" : " (SEED= reproduces it; the same command resumes)", batch.workers,
               batch.workers == 1 ? "" : "s");
        rc = grade_all(&opts, &batch, list, n) ? 1 : 0;
    }
    if (!opts.tasks)
        rc |= merge(&batch, list, n) ? 1 : 0;
    for (int i = 0; i < n; i++)
        free_student(&list[i]);
    free(list);
    return rc;
}
