/* workers.c - the batch's workers and the loop that drives them (grader/batch/batch.h): the
 * GPU slots (GPUS=all: every GPU nvidia-smi lists, started directly; GPUS=0,1; or JOBS=n on the
 * emulator, never two students timed on one GPU), what every student shares built once before
 * any worker starts (make batch-prebuild), and the loop that forks each student's preparer and
 * keeper (grade_one.c) in the order grader/batch/schedule.h decides (one grade per GPU at a
 * time, the next student prepared beside it), reporting each outcome as it ends. Trusted, no
 * GPU of its own. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/text.h"
#include "../lab.h"
#include "../wire/stop.h"
#include "batch.h"
#include "schedule.h"

/* The GPUs nvidia-smi -L lists (started directly, no shell): their indices into ids (at most
 * max of them, each a new string; ids may be NULL to count only). How many; 0 with no GPU or
 * no nvidia-smi. */
static int list_gpus(char **ids, int max)
{
    int fds[2];
    if (pipe(fds))
        die("pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t pid = stop_fork(SIGKILL);
    if (pid == 0) {
        dup2(fds[1], 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        close(fds[0]);
        execlp("nvidia-smi", "nvidia-smi", "-L", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned idx;
        if (sscanf(line, "GPU %u:", &idx) == 1 && (!ids || n < max)) {
            if (ids) {
                char id[16];
                snprintf(id, sizeof id, "%u", idx);
                ids[n] = xstrdup(id);
            }
            n++;
        }
    }
    if (f)
        fclose(f);
    waitpid(pid, NULL, 0);
    stop_forget(pid);
    return n;
}

/* GPUS: unset = one worker on whatever make grade finds (JOBS=n: n of them, on the emulator
 * only); all = one per GPU nvidia-smi lists; "0,1" (indices or UUIDs) = those. */
void choose_workers(const batch_settings *o, batch_state *b)
{
    b->workers = 1;
    b->gpu[0] = NULL;
    if (!o->gpus) { /* JOBS=n workers on whatever make grade finds (the emulator, or one GPU) */
        b->workers = o->jobs ? o->jobs : 1;
        /* Two students timed on one GPU at once would disturb each other's timings. */
        if (b->workers > 1 && !o->emu && list_gpus(NULL, 0) > 0)
            die("JOBS=%d would time %d students on one GPU at once; use GPUS=all (one worker "
                "per GPU), or EMU=1 for correctness only", b->workers, b->workers);
        for (int w = 0; w < b->workers; w++)
            b->gpu[w] = NULL;
        return;
    }
    if (o->jobs)
        die("give GPUS or JOBS, not both (GPUS runs one worker per GPU)");
    if (!strcmp(o->gpus, "all")) {
        const int n = list_gpus(b->gpu, MAX_WORKERS);
        if (n == 0) {
            printf("GPUS=all: nvidia-smi lists no GPU here; one worker, correctness on the CPU "
                   "emulator.\n");
            return;
        }
        b->workers = n;
        return;
    }
    char *copy = xstrdup(o->gpus);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!*t || strspn(t, "0123456789abcdefABCDEF-GPUMIG/") != strlen(t))
            die("GPUS=%s: `%s` is not a GPU index or UUID (GPUS=all, or GPUS=0,1)", o->gpus, t);
        if (n == MAX_WORKERS)
            die("GPUS=%s: more than %d GPUs", o->gpus, MAX_WORKERS);
        b->gpu[n++] = xstrdup(t);
    }
    if (n == 0)
        die("GPUS=%s names no GPU (GPUS=all, or GPUS=0,1)", o->gpus);
    b->workers = n;
}

static void print_outcome(int done, int total, const student *s, const grade_row *row,
                          const char *how)
{
    printf("[%d/%d] ", done, total);
    show_name(stdout, s->name);
    if (!strcmp(row->state, "refused")) { /* the reason names the submission's own files */
        fputs(": ", stdout);
        text_put(stdout, row->reason, 0);
        putchar('\n');
    } else {
        char total[64];
        row_total_text(row, total, sizeof total);
        if (total[0])
            printf(": %s", total);
        else /* no GPU: no total, and the checks that were graded */
            printf(": no score, speed not graded (no GPU); correctness %d of %d checks",
                   row->correct_passed, row->correct_checks);
        printf(" (exit %d)%s", row->exit_status, how);
        /* each lab without work, with why (a misplaced file with where it belongs) */
        for (int k = 0; k < n_all_labs; k++)
            if (row->selected[k] && row->absent[k]) {
                char absent[400];
                row_absent_text(row, k, absent, sizeof absent);
                fputs("; ", stdout);
                text_put(stdout, absent, 0);
            }
        putchar('\n');
    }
    fflush(stdout);
}

/* Build what every student shares once, before any worker starts (workers then only build
 * their own objects). Runs make with fixed arguments only. */
static void prebuild_pass(const batch_settings *o, const batch_state *b, int emu)
{
    char labs[1200];
    snprintf(labs, sizeof labs, "BATCH_LABS=%s", b->labs_arg);
    for (char *p = labs; *p; p++)
        if (*p == ',')
            *p = ' ';
    char a_build[PATH_MAX];
    char *argv[8] = {getenv("MAKE") ? getenv("MAKE") : "make", "-s", "--no-print-directory",
                     "batch-prebuild", labs};
    int argc = 5;
    if (emu)
        argv[argc++] = "EMU=1";
    if (o->build) {
        snprintf(a_build, sizeof a_build, "BUILD=%s", o->build);
        argv[argc++] = a_build;
    }
    argv[argc] = NULL;
    fflush(stdout);
    pid_t pid = stop_fork(SIGTERM);
    if (pid == 0) {
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
        unsetenv("MAKEOVERRIDES");
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    stop_forget(pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        die("building the grader failed (see above); nothing was graded");
}

/* Build what every student shares once, before any worker starts (workers then only build
 * their own objects): on a GPU, the CPU emulator's shared pieces too (the WHERE line's), so
 * that no two students' makes write them at once. Runs make with fixed arguments only. */
static void prebuild(const batch_settings *o, const batch_state *b)
{
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    printf("Building what every student shares (the grader, each lab's harness and reference)...\n");
    prebuild_pass(o, b, o->emu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const int gpu = !o->emu && list_gpus(NULL, 0) > 0;
    if (gpu)
        prebuild_pass(o, b, 1);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    const double own = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    const double emu = (double)(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
    if (gpu)
        printf("Built in %.1f s: the GPU's pieces %.1f s, the CPU emulator's (the WHERE line's count) "
               "%.1f s (make all builds both ahead).\n", own + emu, own, emu);
    else
        printf("Built in %.1f s.\n", own);
}

/* A process the batch started: a student's preparer or keeper. */
typedef struct running_stage {
    pid_t pid;   /* 0: free entry */
    int student; /* index into the queue */
    int grade;   /* 1: the keeper (grading), 0: the preparer */
    int gpu;     /* the keeper's GPU slot (batch_state.gpu) */
} running_stage;

/* The students of this task (o->task of o->tasks) that still need grading, into queue; those
 * with a record already or refused before grading are reported here. Returns how many queued. */
static int queue_ungraded(const batch_settings *o, const batch_state *b, student *list, int n, int mine, int *done, int *queue)
{
    int nq = 0;
    for (int i = 0; i < n; i++) {
        if (o->tasks && i % o->tasks != o->task)
            continue;
        student *s = &list[i];
        grade_row row;
        if (read_record(b, s, &row) == 0) {
            print_outcome(++*done, mine, s, &row, ", graded earlier");
            continue;
        }
        if (s->refusal[0]) {
            char dir[PATH_MAX];
            student_dir(b, s, dir, sizeof dir);
            mkdirs(dir);
            init_row(b, &row, s);
            snprintf(row.state, sizeof row.state, "refused");
            snprintf(row.reason, sizeof row.reason, "refused: %s", s->refusal);
            row.exit_status = 1;
            write_exports(dir, &row, NULL);
            write_record(b, s, &row);
            print_outcome(++*done, mine, s, &row, "");
            continue;
        }
        queue[nq++] = i;
    }
    return nq;
}

/* A graded student's keeper ended with `status`: its outcome printed from its record (with the
 * GPU that graded it, where several do: "on GPU 1", as CUDA_VISIBLE_DEVICES named it), or why
 * there is none. Returns 1 if the student was not graded. */
static int report_graded(const batch_state *b, student *s, int status, int mine, int *done, const char *gpu)
{
    grade_row row;
    if (read_record(b, s, &row) == 0) {
        char on[80] = "";
        if (gpu && b->workers > 1)
            snprintf(on, sizeof on, " on GPU %s", gpu);
        print_outcome(++*done, mine, s, &row, on);
        return 0;
    }
    printf("[%d/%d] ", ++*done, mine);
    show_name(stdout, s->name);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
        printf(": not graded: the grader stopped before writing its results (see "
               "%s/students/%s/report.txt); run the same command again to retry\n",
               b->out, s->id);
    else
        printf(": not graded (the grading process ended with status %d); run the same "
               "command again to retry\n",
               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 1;
}

int grade_all(const batch_settings *o, const batch_state *b, student *list, int n)
{
    int mine = 0, done = 0;
    for (int i = 0; i < n; i++)
        mine += o->tasks == 0 || i % o->tasks == o->task;
    int *queue = malloc((n + 1) * sizeof *queue);
    if (!queue)
        die("out of memory");
    const int nq = queue_ungraded(o, b, list, n, mine, &done, queue);
    if (nq == 0) {
        free(queue);
        return 0;
    }
    prebuild(o, b);
    /* One grade per GPU slot at a time (schedule.h); one preparer at a time, each with make -j
     * over the CPUs, up to one student ready per GPU beyond those grading. */
    sched plan;
    if (sched_init(&plan, nq, b->workers, 1, b->workers + 1))
        die("out of memory");
    running_stage run[MAX_WORKERS + 2];
    memset(run, 0, sizeof run);
    const int nrun = (int)(sizeof run / sizeof run[0]);
    int failed = 0;
    for (;;) {
        sched_action a;
        while ((a = sched_next(&plan)).kind == SCHED_PREPARE || a.kind == SCHED_GRADE) {
            fflush(stdout);
            pid_t pid = stop_fork(SIGTERM);
            if (pid < 0)
                die("fork: %s", strerror(errno));
            if (pid == 0) {
                if (a.kind == SCHED_PREPARE)
                    preparer(o, b, &list[queue[a.student]]);
                keeper(o, b, &list[queue[a.student]], b->gpu[a.gpu]);
            }
            int k = 0;
            while (k < nrun && run[k].pid)
                k++;
            if (k == nrun)
                die("more stages running than the schedule allows");
            run[k] = (running_stage){pid, a.student, a.kind == SCHED_GRADE, a.gpu};
        }
        if (a.kind == SCHED_DONE)
            break;
        int status;
        pid_t pid = wait(&status); /* a stage, or an orphan adopted here (stop.h): skipped */
        if (pid < 0)
            die("wait: %s", strerror(errno));
        for (int k = 0; k < nrun; k++) {
            if (run[k].pid != pid)
                continue;
            run[k].pid = 0;
            stop_forget(pid);
            if (!run[k].grade) {
                sched_prepared(&plan, run[k].student);
                continue;
            }
            sched_graded(&plan, run[k].student);
            failed += report_graded(b, &list[queue[run[k].student]], status, mine, &done, b->gpu[run[k].gpu]);
        }
    }
    sched_free(&plan);
    free(queue);
    return failed;
}
