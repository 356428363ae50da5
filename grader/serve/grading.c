/* grading.c - TRUSTED; starts what runs student code: the grading slots. One slot per GPU
 * (nvidia-smi -L; GPUS=0,2 picks, each slot's CUDA_VISIBLE_DEVICES its GPU), one grading a slot
 * at a time; with no GPU (or EMU=1), JOBS slots (1) on the CPU emulator. A slot takes the oldest
 * queued submission (queued -> grading, in a transaction), writes its files into a fresh folder
 * COURSE/work/<id>.<attempt>/tree and runs `make grade STUDENT=that LAB=its lab` there, exactly
 * as a student would (the same sandbox, verdicts and report; the course folder hidden from the
 * compile and the code, GRADER_HIDE), under a keeper (keeper.c) that ends all of it should the
 * server die, in a process group of its own; then the report, make's
 * exit status and results.json's figures are written with the state done in one transaction.
 * A server killed mid-grading finds the row still grading at its next start: the leftover
 * process group is ended and the row queued again, so it is graded again, and done once. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "../lab.h"
#include "../plan/lab_select.h"
#include "serve.h"

#define MAX_SLOTS 64
extern char **environ;

typedef struct slot {
    int index;
    const serve_ctx *ctx; /* the store and the settings (grading_start's) */
    char gpu[256];     /* "GPU 0: NVIDIA H200", or the emulator's line */
    char **envp;       /* the environment its make grade gets */
    pthread_t thread;
    volatile pid_t pgid;
    char now[160];     /* what it grades, for the status page */
    double since;      /* since when (0: idle) */
} slot;

static slot slots[MAX_SLOTS];
/* Grading through Slurm (make serve SLURM=n, SERVE_SLURM here: n gradings at once, each a job
 * step of srun; SLURM_GPU=1 asks a GPU for each, 0 none, unset: when sinfo lists one;
 * SLURM_PARTITION=p). */
static struct { int slots, gpu; char partition[128]; } slurm;
static int n_slots;
static volatile int stopping;
static pthread_mutex_t now_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;

int grading_slots(void) { return n_slots; }
const char *grading_gpu(int k) { return slots[k].gpu; }
/* "submission 12, lab 01, for 3 s", or "" when idle (into a buffer of the caller's thread) */
const char *grading_now(int k)
{
    static __thread char text[200];
    pthread_mutex_lock(&now_lock);
    if (slots[k].since > 0)
        snprintf(text, sizeof text, "%s, for %.0f s", slots[k].now, now_s() - slots[k].since);
    else
        text[0] = 0;
    pthread_mutex_unlock(&now_lock);
    return text;
}

void grading_wake(void)
{
    pthread_mutex_lock(&now_lock);
    pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&now_lock);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}
static void rm_tree(const char *path) { nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* A process's start time (/proc/PID/stat's 22nd field), to know a pgid is still ours. */
static void proc_start(pid_t pid, char *out, size_t len)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    *out = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p)
        snprintf(out, len, "%.*s", (int)strcspn(p + 1, " "), p + 1);
}

/* The environment of a slot's make grade: the server's without make's own settings, with the
 * slot's GPU. */
static char **slot_env(const char *gpu)
{
    int n = 0;
    while (environ[n])
        n++;
    char **e = calloc((size_t)n + 2, sizeof *e);
    int k = 0;
    for (int i = 0; i < n; i++) {
        static const char *drop[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GNUMAKEFLAGS=", "MAKEOVERRIDES=", "CUDA_VISIBLE_DEVICES=", NULL};
        int skip = 0;
        for (const char **d = drop; *d; d++)
            skip |= !strncmp(environ[i], *d, strlen(*d));
        if (!skip)
            e[k++] = environ[i];
    }
    if (gpu) {
        char *v = malloc(64);
        snprintf(v, 64, "CUDA_VISIBLE_DEVICES=%s", gpu);
        e[k++] = v;
    }
    return e;
}

/* make grade (or the tests' stand-in) for one submission, in a process group of its own, its
 * output into REPORT; the pgid kept in the row, so that a server that dies leaves it findable.
 * Returns the exit status (128 + a signal's number), or -1 when it could not start. */
static int run_grade(slot *s, long long id, char *const argv[], const char *report)
{
    char keeper[4200];
    snprintf(keeper, sizeof keeper, "%s/host/serve-keeper", s->ctx->opts->build);
    const int rfd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const pid_t pid = fork();
    if (pid == 0) {
        sigset_t none; /* the server blocks SIGTERM and SIGINT in every thread (its main waits for them) */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL); /* and ignores SIGPIPE, which exec would pass on */
        umask(022); /* make grade's, as a student's shell would have it (its build is shared) */
        setpgid(0, 0); /* its own group: ended whole at a stop, or at the next start if the server died */
        const int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(rfd, 1);
        dup2(rfd, 2);
        execve(keeper, argv, s->envp); /* argv[0] is the keeper: serve-keeper COMMAND ARGS */
        _exit(127);
    }
    close(rfd);
    if (pid < 0)
        return -1;
    setpgid(pid, pid);
    pthread_mutex_lock(&now_lock); /* a stop (grading_stop) ends the group it sees, or the slot sees the stop: never neither */
    s->pgid = pid;
    if (stopping)
        kill(-pid, SIGTERM);
    pthread_mutex_unlock(&now_lock);
    char pstart[32];
    proc_start(pid, pstart, sizeof pstart);
    sqlite3_stmt *st;
    store_lock();
    sqlite3_prepare_v2(s->ctx->db, "UPDATE submissions SET pgid=?, pstart=? WHERE id=?", -1, &st, NULL);
    sqlite3_bind_int(st, 1, pid);
    sqlite3_bind_text(st, 2, pstart, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, id);
    sqlite3_step(st);
    sqlite3_finalize(st);
    store_unlock();
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pthread_mutex_lock(&now_lock);
    s->pgid = 0;
    pthread_mutex_unlock(&now_lock);
    kill(-pid, SIGKILL); /* anything it left behind */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The files of the grading's folder OUT that its report names (each check's log, a fault's
 * report, the build's log, results.json: make grade's GRADE_DIR), into the logs table for the
 * student to fetch (make submit writes them where the report says): regular files at its top,
 * by a plain name, each cut at LOG_CAP, LOGS_CAP in all. In the caller's transaction. */
#define LOG_CAP (256 << 10)
#define LOGS_CAP (4 << 20)
static int keep_logs(sqlite3 *db, long long id, const char *out)
{
    DIR *d = opendir(out);
    sqlite3_stmt *st = NULL;
    size_t total = 0;
    int ok = d != NULL && sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO logs(submission, name, body) VALUES(?,?,?)", -1, &st, NULL) == SQLITE_OK;
    char *buf = malloc(LOG_CAP);
    for (struct dirent *e; ok && buf && (e = readdir(d)) && total < LOGS_CAP;) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' || !dot || strspn(e->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(e->d_name)
            || (strcmp(dot, ".log") && strcmp(dot, ".report") && strcmp(dot, ".txt") && strcmp(dot, ".json")))
            continue; /* what a report names: logs, reports, the WHERE table, results.json (not the harness's records) */
        const int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* a pipe: never waited on */
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        const size_t want = total + LOG_CAP > LOGS_CAP ? LOGS_CAP - total : LOG_CAP;
        const ssize_t n = read(fd, buf, want);
        close(fd);
        if (n < 0)
            continue;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, e->d_name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob(st, 3, buf, (int)n, SQLITE_TRANSIENT);
        ok = sqlite3_step(st) == SQLITE_DONE;
        total += (size_t)n;
    }
    if (d) {
        sqlite3_finalize(st);
        closedir(d);
    }
    free(buf);
    return d == NULL || ok;
}

/* The grading's result (the report, capped; make's status; results.json's figures) with the
 * state done and its row in gradings: one transaction, and only while the row is still this
 * attempt's grading. */
static void record(sqlite3 *db, long long id, int attempt, int code, const char *report, const char *out, const char *results)
{
    char *text = malloc(REPORT_CAP + 128);
    size_t len = 0;
    FILE *f = fopen(report, "r");
    if (f) {
        len = fread(text, 1, REPORT_CAP, f);
        if (len == REPORT_CAP && fgetc(f) != EOF)
            len += (size_t)snprintf(text + len, 128, "\n[the report was cut at %d KiB]\n", REPORT_CAP >> 10);
        fclose(f);
    }
    if (slurm.slots) { /* srun's own last line on a failed step ("srun: error: node: task 0: Exited
                        * with exit code 2"): make's status says it already */
        text[len] = 0;
        char *last = len > 1 ? memrchr(text, '\n', len - 1) : NULL;
        last = last ? last + 1 : text;
        if (!strncmp(last, "srun: error: ", 13) && strstr(last, ": task 0: Exited with exit code "))
            len = (size_t)(last - text);
    }
    json_t *r = json_load_file(results, 0, NULL), *v;
    sqlite3_stmt *st;
    store_lock();
    store_exec(db, "BEGIN IMMEDIATE");
    sqlite3_prepare_v2(db,
        "UPDATE submissions SET state='done', finished=?1, exit_code=?2, report=?3, score=?4, max=?5,"
        " correct_passed=?6, correct_checks=?7, speed_graded=?8, pgid=NULL, results=?11 WHERE id=?9 AND state='grading' AND attempts=?10",
        -1, &st, NULL);
    sqlite3_bind_double(st, 1, now_s());
    sqlite3_bind_int(st, 2, code);
    sqlite3_bind_blob(st, 3, text, (int)len, SQLITE_TRANSIENT);
    if (r && json_is_number(v = json_object_get(r, "score")))
        sqlite3_bind_double(st, 4, json_number_value(v));
    if (r && json_is_number(v = json_object_get(r, "max")))
        sqlite3_bind_double(st, 5, json_number_value(v));
    if (r && json_is_integer(v = json_object_get(r, "correct_passed")))
        sqlite3_bind_int64(st, 6, json_integer_value(v));
    if (r && json_is_integer(v = json_object_get(r, "correct_checks")))
        sqlite3_bind_int64(st, 7, json_integer_value(v));
    if (r && json_is_boolean(v = json_object_get(r, "speed_graded")))
        sqlite3_bind_int(st, 8, json_is_true(v));
    sqlite3_bind_int64(st, 9, id);
    sqlite3_bind_int(st, 10, attempt);
    char *rtext = r ? json_dumps(r, JSON_COMPACT) : NULL; /* kept whole: make serve-export's exports read it */
    if (rtext && strlen(rtext) < (8u << 20))
        sqlite3_bind_text(st, 11, rtext, -1, SQLITE_TRANSIENT);
    free(rtext);
    int ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) == 1;
    sqlite3_finalize(st);
    if (ok) {
        sqlite3_prepare_v2(db, "INSERT INTO gradings(submission, attempt, finished) VALUES(?,?,?)", -1, &st, NULL);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int(st, 2, attempt);
        sqlite3_bind_double(st, 3, now_s());
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    ok = ok && keep_logs(db, id, out);
    store_exec(db, ok ? "COMMIT" : "ROLLBACK");
    store_changed();
    store_unlock();
    json_decref(r);
    free(text);
}

/* One claimed submission's grading: its files into a fresh folder, make grade there, the
 * result recorded. Returns 0 when it was recorded, -1 when stopped. */
static int grade_one(slot *s, long long id, int attempt, const char *lab_key, const void *archive, size_t n)
{
    const serve_opts *o = s->ctx->opts;
    char dir[4400], tree[4500], out[4500], report[4500], err[512];
    snprintf(dir, sizeof dir, "%s/work/%lld.%d", o->course, id, attempt);
    snprintf(tree, sizeof tree, "%s/tree", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(report, sizeof report, "%s/report.txt", dir);
    rm_tree(dir);
    mkdir(dir, 0700);
    mkdir(out, 0700);
    const lab_info *lab = find_lab(lab_key);
    char folder[64], rel[128];
    lab_folder(lab, folder, sizeof folder);
    lab_student_rel(lab, rel, sizeof rel);
    up_file files[UP_MAX_FILES];
    const int nf = upload_parse(archive, n, folder, rel, files, err, sizeof err);
    if (nf < 0 || upload_write(tree, files, nf, err, sizeof err)) {
        serve_log("submission %lld: its files could not be written again: %s", id, err);
        return -1;
    }
    char a_student[4600], a_lab[64], a_out[4600], a_hide[4400], a_build[4200], a_seed[80];
    snprintf(a_student, sizeof a_student, "STUDENT=%s", tree);
    snprintf(a_lab, sizeof a_lab, "LAB=%s", lab->number);
    snprintf(a_out, sizeof a_out, "GRADE_DIR=%s", out);
    snprintf(a_hide, sizeof a_hide, "GRADER_HIDE=%s", o->course);
    snprintf(a_build, sizeof a_build, "BUILD=%s", o->build);
    snprintf(a_seed, sizeof a_seed, "SEED=%s", o->seed);
    const char *stand_in = getenv("SERVE_GRADE_CMD"); /* the tests' stand-in for make grade */
    char a_job[64], *argv[24] = {"serve-keeper"};
    int argc = 1;
    if (slurm.slots) { /* through Slurm: one job step a grading, on the checkout every node sees */
        snprintf(a_job, sizeof a_job, "--job-name=cw-serve-%lld", id);
        argv[argc++] = "srun", argv[argc++] = "--quiet", argv[argc++] = "--ntasks=1", argv[argc++] = a_job;
        if (slurm.gpu)
            argv[argc++] = "--gres=gpu:1";
        if (*slurm.partition)
            argv[argc++] = slurm.partition;
    }
    char *make[] = {"make", "-s", "--no-print-directory", "grade", a_student, a_lab, a_out, a_hide, a_build, a_seed, NULL};
    char *alone[] = {(char *)stand_in, tree, (char *)lab->number, out, NULL};
    for (char **p = stand_in && *stand_in ? alone : make; *p; p++)
        argv[argc++] = *p;
    argv[argc] = NULL;
    const int code = run_grade(s, id, argv, report);
    if (stopping || code < 0)
        return -1;
    char results[4600];
    snprintf(results, sizeof results, "%s/results.json", out);
    record(s->ctx->db, id, attempt, code, report, out, results);
    serve_log("submission %lld (lab %s) graded on %s: exit %d", id, lab->number, s->gpu, code);
    rm_tree(dir);
    return 0;
}

/* The oldest queued submission, now grading on slot S (one transaction): 1, or 0 for none. */
static int claim(slot *s, long long *id, int *attempt, char *lab, size_t lablen, void **archive, size_t *n)
{
    sqlite3 *db = s->ctx->db;
    int got = 0;
    sqlite3_stmt *st;
    store_lock();
    store_exec(db, "BEGIN IMMEDIATE");
    sqlite3_prepare_v2(db, "SELECT id, lab, attempts, archive FROM submissions WHERE state='queued' ORDER BY id LIMIT 1", -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        snprintf(lab, lablen, "%s", (const char *)sqlite3_column_text(st, 1));
        *attempt = sqlite3_column_int(st, 2) + 1;
        *n = (size_t)sqlite3_column_bytes(st, 3);
        *archive = malloc(*n + 1);
        memcpy(*archive, sqlite3_column_blob(st, 3), *n);
        got = 1;
    }
    sqlite3_finalize(st);
    if (got) {
        sqlite3_prepare_v2(db, "UPDATE submissions SET state='grading', attempts=?, gpu=?, started=? WHERE id=?", -1, &st, NULL);
        sqlite3_bind_int(st, 1, *attempt);
        sqlite3_bind_text(st, 2, s->gpu, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, now_s());
        sqlite3_bind_int64(st, 4, *id);
        got = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    store_exec(db, got ? "COMMIT" : "ROLLBACK");
    if (got)
        store_changed();
    store_unlock();
    return got;
}

static void *slot_loop(void *arg)
{
    slot *s = arg;
    while (!stopping) {
        long long id;
        int attempt;
        char lab[32];
        void *archive = NULL;
        size_t n;
        if (!claim(s, &id, &attempt, lab, sizeof lab, &archive, &n)) {
            pthread_mutex_lock(&now_lock);
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 200 * 1000 * 1000;
            if (t.tv_nsec >= 1000000000)
                t.tv_sec++, t.tv_nsec -= 1000000000;
            if (!stopping)
                pthread_cond_timedwait(&work, &now_lock, &t);
            pthread_mutex_unlock(&now_lock);
            continue;
        }
        pthread_mutex_lock(&now_lock);
        snprintf(s->now, sizeof s->now, "submission %lld, lab %s", id, lab);
        s->since = now_s();
        pthread_mutex_unlock(&now_lock);
        if (grade_one(s, id, attempt, lab, archive, n) && !stopping) { /* it could not start: later */
            sqlite3_stmt *st;
            store_lock();
            sqlite3_prepare_v2(s->ctx->db, "UPDATE submissions SET state='queued' WHERE id=? AND state='grading'", -1, &st, NULL);
            sqlite3_bind_int64(st, 1, id);
            sqlite3_step(st);
            sqlite3_finalize(st);
            store_changed();
            store_unlock();
            sleep(1);
        }
        free(archive);
        pthread_mutex_lock(&now_lock);
        s->now[0] = 0;
        s->since = 0;
        pthread_mutex_unlock(&now_lock);
    }
    return NULL;
}

/* Gradings cut off by a server that died: their leftover process groups ended (when the pgid
 * still names the process that started it), the rows queued again. */
static void requeue(sqlite3 *db)
{
    sqlite3_stmt *st;
    store_lock();
    sqlite3_prepare_v2(db, "SELECT id, pgid, pstart FROM submissions WHERE state='grading'", -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const pid_t pg = sqlite3_column_int(st, 1);
        const char *was = (const char *)sqlite3_column_text(st, 2);
        char is[32];
        if (pg > 1) {
            proc_start(pg, is, sizeof is);
            if (was && *is && !strcmp(is, was)) { /* its keeper: SIGTERM ends all below it, then SIGKILL */
                kill(-pg, SIGTERM);
                for (int k = 0; k < 60 && kill(pg, 0) == 0; k++) {
                    proc_start(pg, is, sizeof is);
                    if (strcmp(is, was))
                        break;
                    usleep(50 * 1000);
                }
                kill(-pg, SIGKILL);
            }
        }
        serve_log("submission %lld: its grading was cut off; queued again", (long long)sqlite3_column_int64(st, 0));
    }
    sqlite3_finalize(st);
    store_exec(db, "UPDATE submissions SET state='queued', pgid=NULL WHERE state='grading'");
    store_unlock();
}

/* SERVE_SLURM=n: n slots, each grading through srun. 1 when so, else 0. */
static int slurm_slots(void)
{
    const char *n = getenv("SERVE_SLURM"), *gpu = getenv("SERVE_SLURM_GPU"), *part = getenv("SERVE_SLURM_PARTITION");
    if (!n || atoi(n) <= 0)
        return 0;
    slurm.slots = atoi(n) < MAX_SLOTS ? atoi(n) : MAX_SLOTS;
    if (gpu && *gpu)
        slurm.gpu = !strcmp(gpu, "1");
    else {
        FILE *p = popen("sinfo -h -o %G 2>/dev/null", "r");
        char line[256];
        while (p && fgets(line, sizeof line, p))
            slurm.gpu |= strstr(line, "gpu") != NULL;
        if (p)
            pclose(p);
    }
    if (part && *part)
        snprintf(slurm.partition, sizeof slurm.partition, "--partition=%s", part);
    for (int k = 0; k < slurm.slots; k++) {
        snprintf(slots[k].gpu, sizeof slots[k].gpu, "Slurm (slot %d%s)", k, slurm.gpu ? ", a GPU of its own" : ", no GPU: the CPU emulator");
        slots[k].envp = slot_env(NULL);
        slots[k].index = n_slots++;
    }
    return 1;
}

/* The slots: one per GPU that nvidia-smi lists (GPUS=0,2 picks), else JOBS emulator slots. */
static void find_slots(void)
{
    const char *emu = getenv("EMU"), *gpus = getenv("GPUS"), *jobs = getenv("JOBS"), *sl = getenv("SERVE_SLURM");
    FILE *p = (emu && !strcmp(emu, "1")) || (sl && atoi(sl) > 0) ? NULL : popen("nvidia-smi -L 2>/dev/null", "r");
    char line[512];
    while (p && fgets(line, sizeof line, p) && n_slots < MAX_SLOTS) {
        int index;
        if (sscanf(line, "GPU %d:", &index) != 1)
            continue;
        char want[16];
        snprintf(want, sizeof want, ",%d,", index);
        char list[256];
        snprintf(list, sizeof list, ",%s,", gpus ? gpus : "");
        if (gpus && *gpus && strcmp(gpus, "all") && !strstr(list, want))
            continue;
        slot *s = &slots[n_slots];
        line[strcspn(line, "(\n")] = 0;
        snprintf(s->gpu, sizeof s->gpu, "%s", line);
        while (*s->gpu && s->gpu[strlen(s->gpu) - 1] == ' ')
            s->gpu[strlen(s->gpu) - 1] = 0;
        char idx[16];
        snprintf(idx, sizeof idx, "%d", index);
        s->envp = slot_env(idx);
        s->index = n_slots++;
    }
    if (p)
        pclose(p);
    if (n_slots)
        return;
    const int n = jobs && atoi(jobs) > 0 ? atoi(jobs) : 1;
    if (slurm_slots())
        return;
    for (int k = 0; k < n && k < MAX_SLOTS; k++) {
        snprintf(slots[k].gpu, sizeof slots[k].gpu, "no GPU: the CPU emulator (slot %d; speed not graded)", k);
        slots[k].envp = slot_env(NULL);
        slots[k].index = n_slots++;
    }
}

int grading_start(const serve_ctx *ctx)
{
    requeue(ctx->db);
    find_slots();
    for (int k = 0; k < n_slots; k++)
        slots[k].ctx = ctx;
    for (int k = 0; k < n_slots; k++)
        if (pthread_create(&slots[k].thread, NULL, slot_loop, &slots[k]))
            return -1;
    return n_slots;
}

void grading_stop(void)
{
    pthread_mutex_lock(&now_lock); /* with run_grade's: a grading starting now is ended too */
    stopping = 1;
    for (int k = 0; k < n_slots; k++) /* each keeper ends all below it (keeper.c) */
        if (slots[k].pgid > 0)
            kill(-slots[k].pgid, SIGTERM);
    pthread_mutex_unlock(&now_lock);
    grading_wake();
    for (int k = 0; k < n_slots; k++)
        pthread_join(slots[k].thread, NULL);
}
