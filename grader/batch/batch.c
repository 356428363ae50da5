/* batch.c - grade a folder of submissions into one gradebook, safely and resumably.
 *
 *   grade-batch grade   SUBMISSIONS=dir [OUT=dir] [LAB=..] [SEED=..] [EMU=1] [GPUS=all|0,1]
 *                       [JOBS=n] [WAIT=1] [TASK=k TASKS=n]   grade, then write the gradebook
 *   grade-batch merge   SUBMISSIONS=dir [OUT=dir] ...    the gradebook from results on disk
 *   grade-batch prepare SUBMISSIONS=dir [OUT=dir] ...    check everything, fix the seed, count
 *   grade-batch export  RESULTS=results.json NAME=student DEST=dir   one student's exports
 *
 * Run it through `make grade-batch` (grader/batch/batch.mk) or grader/slurm/submit.
 *
 * Names are data. A student's folder name is read from the directory and never reaches a
 * shell, make or a command line: each submission is copied (its lab files only, read with
 * O_NOFOLLOW) into OUT/work/<id>/tree, where <id> is a hash of the name, and graded there by
 * exec'ing grader/run/grade.sh with generated paths only. A submission holding a symbolic link or
 * a special file anywhere, or a lab file over FILE_CAP, is refused with the reason, and
 * appears in the gradebook like everyone else.
 *
 * Resume. Each student's outcome is OUT/students/<id>/record.json, written last and
 * atomically (temporary file, fsync, rename), with a fingerprint of everything the grade
 * depends on: seed, labs, mode, course config, every lab's manifest as a whole (the tables
 * compiled in: grader/build/manifest.h, manifest_text), name and the bytes of every lab file
 * graded.
 * A record whose fingerprint matches is final; anything else is graded again. Nothing written
 * to the gradebook depends on the time, so a run that was killed and resumed writes the same
 * bytes as one that was not. OUT/seed keeps the seed of the first run, so the same command,
 * even without SEED=, resumes with it.
 *
 * One run per OUT: an exclusive flock on OUT/.lock (shared for the tasks of a Slurm array).
 *
 * Workers. One per GPU (GPUS=all: every GPU nvidia-smi lists, each worker with its own
 * CUDA_VISIBLE_DEVICES, its own tree and GRADE_DIR), or JOBS=n without GPUS (the emulator:
 * one GPU is never shared by two students being timed). Workers grade side by side. Each
 * student is prepared first (its tree and objects built on the CPUs: the preparer) and then
 * graded (the keeper), in the order grader/batch/schedule.h decides: one grade per GPU at a
 * time, the next student prepared beside it. Each grade runs in a process group of its own
 * under a keeper process that kills the group when the batch dies (a parent-death signal), so
 * a killed batch leaves no grading behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/json.h"
#include "../../common/json_read.h"
#include "../../common/text.h"
#include "../plan/config.h"
#include "../build/manifest.h"
#include "../lab.h"
#include "../plan/lab_select.h"
#include "../decide/score.h"
#include "../wire/stop.h"
#include "../report/exports.h"
#include "../sandbox/helper_files.h"
#include "schedule.h"

#define FILE_CAP (1 << 20)          /* largest lab file accepted, bytes */
#define MAX_ENTRIES 10000           /* files and folders walked in one submission */
#define MAX_DEPTH 16                /* folder depth walked in one submission */
#define REPORT_CAP (256 << 10)      /* bytes of the student's report kept */
#define RESULTS_CAP (256u << 20)    /* largest results.json read */
#define MAX_WORKERS 64

/* ------------------------------------------------------------------------------------------ */
/* Errors and small helpers                                                                    */

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("grade-batch: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        die("out of memory");
    return d;
}

/* A name as the terminal may show it: printable UTF-8 as is, controls and bytes that are not
 * UTF-8 as escapes (common/text.h). */
static void show_name(FILE *f, const char *name) { text_put(f, name, 0); }

typedef struct hash128 {
    uint64_t a, b; /* two FNV-1a 64 streams with different offset bases */
} hash128;

static void hash_init(hash128 *h)
{
    h->a = 0xcbf29ce484222325ull;
    h->b = 0x84222325cbf29ce4ull;
}

static void hash_bytes(hash128 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ull;
        h->b = (h->b ^ (unsigned char)(p[i] + 0x5b)) * 0x100000001b3ull;
    }
}

/* A length, then the bytes: so ("ab","c") and ("a","bc") differ. */
static void hash_field(hash128 *h, const void *data, size_t n)
{
    uint64_t len = n;
    hash_bytes(h, &len, sizeof len);
    hash_bytes(h, data, n);
}

static void hash_hex(const hash128 *h, char *out, size_t len)
{
    snprintf(out, len, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}

/* mkdir -p for generated paths. */
static void mkdirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0755) && errno != EEXIST)
        die("cannot create %s: %s", buf, strerror(errno));
}

/* rm -rf below dirfd/name without following any symbolic link. */
static void rm_tree_at(int dirfd, const char *name)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return;
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (fd >= 0) {
            DIR *d = fdopendir(fd);
            struct dirent *e;
            while (d && (e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    rm_tree_at(fd, e->d_name);
            if (d)
                closedir(d);
            else
                close(fd);
        }
        unlinkat(dirfd, name, AT_REMOVEDIR);
    } else {
        unlinkat(dirfd, name, 0);
    }
}

static void rm_tree(const char *path)
{
    rm_tree_at(AT_FDCWD, path);
}

/* Write a file atomically: everything to path.tmp.PID, fsync, then rename over path. */
typedef struct atomic_file {
    FILE *f;
    char tmp[PATH_MAX + 32];
    char path[PATH_MAX];
} atomic_file;

static FILE *atomic_open(atomic_file *a, const char *path)
{
    snprintf(a->path, sizeof a->path, "%s", path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%d", path, (int)getpid());
    stop_temp(a->tmp); /* a stop removes it: the file is whole, or as it was */
    a->f = fopen(a->tmp, "wb");
    if (!a->f)
        die("cannot write %s: %s", a->tmp, strerror(errno));
    return a->f;
}

static void atomic_commit(atomic_file *a)
{
    if (fflush(a->f) || fsync(fileno(a->f)) || ferror(a->f))
        die("cannot write %s: %s", a->tmp, strerror(errno));
    fclose(a->f);
    if (rename(a->tmp, a->path))
        die("cannot rename %s to %s: %s", a->tmp, a->path, strerror(errno));
    stop_temp_done(a->tmp);
}

static void write_whole(const char *path, const void *data, size_t n)
{
    atomic_file a;
    fwrite(data, 1, n, atomic_open(&a, path));
    atomic_commit(&a);
}

/* Read a trusted file whole (the skeletons, the course config). NULL if absent. */
static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (!buf)
        die("out of memory");
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* Settings                                                                                    */

typedef struct settings {
    const char *cmd;                  /* grade, merge, prepare or export */
    const char *submissions;          /* SUBMISSIONS: one folder per student */
    const char *out;                  /* OUT: where everything goes (default build/batch) */
    const char *lab;                  /* LAB as given */
    const char *seed;                 /* SEED as given, or NULL */
    const char *gpus;                 /* GPUS as given, or NULL */
    const char *build;                /* BUILD passed on to make grade, or NULL */
    int jobs;                         /* JOBS: workers when GPUS is not given (default 1) */
    const char *results, *name, *dest; /* export: one results.json, the name, where to */
    int emu;                          /* EMU=1 */
    int wait;                         /* WAIT=1: wait for the lock instead of failing */
    int allow_unisolated;             /* ALLOW_UNISOLATED=1: grade where student code cannot be
                                         isolated (every report then says it is not
                                         tamper-proof); otherwise such a run stops */
    int task, tasks;                  /* TASK/TASKS: grade only index % tasks == task */
} settings;

static settings S = {.cmd = "grade", .out = "build/batch", .lab = "", .tasks = 0};

/* The state every part of the run shares, fixed before any student is looked at. */
static struct {
    char root[PATH_MAX];           /* the checkout (the current directory) */
    char out[PATH_MAX];            /* OUT, absolute */
    int selected[ROW_MAX_LABS];    /* labs graded this run, registry order */
    int lab_max[ROW_MAX_LABS];     /* their points possible under the course config */
    char labs_arg[1024];           /* "coalescing,banks": LAB= for grade.sh */
    char seed[32];                 /* "0x..." */
    char *config_text;             /* course config file bytes + GRADER_SET, for fingerprints */
    size_t config_len;
    char *gpu[MAX_WORKERS];        /* CUDA_VISIBLE_DEVICES per worker; NULL: leave unset */
    int workers;
    int subs_fd;                   /* SUBMISSIONS, open */
    char *skeleton[ROW_MAX_LABS];  /* each lab's skeleton, the workbook's own (never the
                                      checkout's edits: pristine_skeletons.sh) */
    size_t skeleton_size[ROW_MAX_LABS];
} B;

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
        S.cmd = argv[i++];
    if (strcmp(S.cmd, "grade") && strcmp(S.cmd, "merge") && strcmp(S.cmd, "prepare") &&
        strcmp(S.cmd, "export"))
        die("unknown command `%s` (grade, merge, prepare or export)", S.cmd);
    const char *task = NULL, *tasks = NULL;
    for (; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!eq)
            die("expected KEY=value, got `%s`", a);
        const char *v = eq + 1;
        const size_t k = (size_t)(eq - a);
#define IS(name) (k == strlen(name) && !strncmp(a, name, k))
        if (IS("SUBMISSIONS")) S.submissions = v;
        else if (IS("OUT")) S.out = *v ? v : S.out;
        else if (IS("LAB")) S.lab = v;
        else if (IS("SEED")) S.seed = *v ? v : NULL;
        else if (IS("GPUS")) S.gpus = *v ? v : NULL;
        else if (IS("BUILD")) S.build = *v ? v : NULL;
        else if (IS("JOBS")) S.jobs = *v ? parse_int_arg("JOBS", v, 1, MAX_WORKERS) : 0;
        else if (IS("EMU")) S.emu = *v && strcmp(v, "0");
        else if (IS("WAIT")) S.wait = *v && strcmp(v, "0");
        else if (IS("ALLOW_UNISOLATED")) S.allow_unisolated = *v && strcmp(v, "0");
        else if (IS("TASK")) task = *v ? v : NULL;
        else if (IS("TASKS")) tasks = *v ? v : NULL;
        else if (IS("RESULTS")) S.results = v;
        else if (IS("NAME")) S.name = v;
        else if (IS("DEST")) S.dest = v;
        else die("unknown setting `%.*s` (SUBMISSIONS, OUT, LAB, SEED, EMU, GPUS, JOBS, WAIT, "
                 "ALLOW_UNISOLATED, BUILD, "
                 "TASK, TASKS; for export RESULTS, NAME, DEST)", (int)k, a);
#undef IS
    }
    if (!!task != !!tasks)
        die("TASK and TASKS go together (TASK=k TASKS=n grades every n-th student from the k-th)");
    if (tasks) {
        S.tasks = parse_int_arg("TASKS", tasks, 1, 1000000);
        S.task = parse_int_arg("TASK", task, 0, S.tasks - 1);
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

/* LAB= as the driver reads it (lab_select.h): B.selected and the list handed to grade.sh. */
static void select_labs(void)
{
    const lab_info *labs[ROW_MAX_LABS];
    char err[1024];
    const int n = lab_list_parse(S.lab, labs, err, sizeof err);
    if (n < 0)
        die("%s", err);
    B.labs_arg[0] = 0;
    for (int k = 0; k < n_all_labs; k++) {
        B.selected[k] = 0;
        for (int i = 0; i < n; i++)
            B.selected[k] |= labs[i] == all_labs[k];
        if (B.selected[k])
            snprintf(B.labs_arg + strlen(B.labs_arg), sizeof B.labs_arg - strlen(B.labs_arg),
                     "%s%s", B.labs_arg[0] ? "," : "", all_labs[k]->name);
    }
}

/* The course config as the driver will read it: validated now (one clear error before any
 * student is graded), its bytes kept for the fingerprints, each lab's maximum computed. */
static void load_course_config(void)
{
    config cfg = {.n = 0};
    char err[512];
    const char *path = getenv("GRADER_CONFIG");
    if (!path && access("grader/course.conf", R_OK) == 0)
        path = "grader/course.conf";
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
    B.config_len = flen + 1 + slen;
    B.config_text = malloc(B.config_len + 1);
    if (!B.config_text)
        die("out of memory");
    if (flen)
        memcpy(B.config_text, ftext, flen);
    B.config_text[flen] = 0;
    if (slen)
        memcpy(B.config_text + flen + 1, set, slen);
    free(ftext);
    /* Each lab's maximum under the course config, by the driver's own rule (score.h). */
    for (int k = 0; k < n_all_labs; k++) {
        const score_rules rules = score_rules_for(&cfg, all_labs[k]);
        lab_score score;
        score_lab(all_labs[k], &rules, NULL, 0, NULL, &score);
        B.lab_max[k] = score.possible;
    }
}

/* GPUS: unset = one worker on whatever make grade finds; all = one per GPU nvidia-smi lists;
 * "0,1" (indices or UUIDs) = those. */
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

static void choose_workers(void)
{
    B.workers = 1;
    B.gpu[0] = NULL;
    if (!S.gpus) { /* JOBS=n workers on whatever make grade finds (the emulator, or one GPU) */
        B.workers = S.jobs ? S.jobs : 1;
        /* Two students timed on one GPU at once would disturb each other's timings. */
        if (B.workers > 1 && !S.emu && list_gpus(NULL, 0) > 0)
            die("JOBS=%d would time %d students on one GPU at once; use GPUS=all (one worker "
                "per GPU), or EMU=1 for correctness only", B.workers, B.workers);
        for (int w = 0; w < B.workers; w++)
            B.gpu[w] = NULL;
        return;
    }
    if (S.jobs)
        die("give GPUS or JOBS, not both (GPUS runs one worker per GPU)");
    if (!strcmp(S.gpus, "all")) {
        const int n = list_gpus(B.gpu, MAX_WORKERS);
        if (n == 0) {
            printf("GPUS=all: nvidia-smi lists no GPU here; one worker, correctness on the CPU "
                   "emulator.\n");
            return;
        }
        B.workers = n;
        return;
    }
    char *copy = xstrdup(S.gpus);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!*t || strspn(t, "0123456789abcdefABCDEF-GPUMIG/") != strlen(t))
            die("GPUS=%s: `%s` is not a GPU index or UUID (GPUS=all, or GPUS=0,1)", S.gpus, t);
        if (n == MAX_WORKERS)
            die("GPUS=%s: more than %d GPUs", S.gpus, MAX_WORKERS);
        B.gpu[n++] = xstrdup(t);
    }
    if (n == 0)
        die("GPUS=%s names no GPU (GPUS=all, or GPUS=0,1)", S.gpus);
    B.workers = n;
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
    snprintf(path, sizeof path, "%s/seed", B.out);
    char *text = read_whole(path, NULL);
    if (text) {
        if (parse_seed(strtok(text, "\n") ? text : "", kept, sizeof kept))
            kept[0] = 0;
        free(text);
    }
    if (S.seed) {
        if (parse_seed(S.seed, B.seed, sizeof B.seed))
            die("SEED=%s is not a number from 0 to 2^64-1 (for example SEED=0x1234abcd)", S.seed);
        if (kept[0] && strcmp(kept, B.seed))
            printf("SEED=%s differs from this output folder's earlier seed %s: every student is "
                   "graded again.\n", B.seed, kept);
    } else if (kept[0]) {
        snprintf(B.seed, sizeof B.seed, "%s", kept);
        printf("Resuming with the seed kept in %s: %s.\n", path, B.seed);
    } else {
        unsigned long long v;
        if (getrandom(&v, sizeof v, 0) != sizeof v)
            die("getrandom: %s", strerror(errno));
        snprintf(B.seed, sizeof B.seed, "0x%llx", v);
    }
    if (write_it) {
        char line[48];
        snprintf(line, sizeof line, "%s\n", B.seed);
        write_whole(path, line, strlen(line));
    }
}

/* One run per OUT. Exclusive for grade, merge and prepare; shared for the tasks of an array. */
static void take_lock(int shared)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/.lock", B.out);
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
        if (!S.wait)
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

/* ------------------------------------------------------------------------------------------ */
/* Students: scan, refuse, fingerprint                                                         */

/* One of a student's helper files (grader/sandbox/helper_files.h), copied beside their lab
 * file in the tree graded. */
typedef struct helper {
    char *rel;           /* its path inside the lab's folder */
    char *bytes;
    size_t size;
    struct helper *next;
} helper;

typedef struct student {
    char *name;                    /* the folder's name, exact bytes */
    char id[40];                   /* "s" + hash of the name: the safe folder name */
    char fingerprint[40];          /* what the grade depends on; see the file comment */
    char refusal[1024];            /* why it is not graded; empty when it is */
    char *file[ROW_MAX_LABS];      /* every lab's file as it will be graded (theirs or skeleton) */
    size_t size[ROW_MAX_LABS];
    int theirs[ROW_MAX_LABS];      /* 1 where file[k] came from the submission */
    int absent[ROW_MAX_LABS];      /* why lab k has no work of theirs (ABSENT_*), or 0 */
    char absent_detail[ROW_MAX_LABS][240]; /* what the report adds (grade_row.absent_detail),
                                      shown as data (text_visible) */
    helper *helpers[ROW_MAX_LABS]; /* the helper files lab k's file includes, graded with it */
    char **held;                   /* every regular file of the submission, its path inside it */
    int n_held;
} student;

/* Walk a submission: no symbolic link, no special file, bounded size. Returns 0, or -1 with
 * the reason in s->refusal. rel is the path shown in messages. */
static int walk(student *s, int dirfd, const char *rel, int depth, int *entries)
{
    if (depth > MAX_DEPTH)
        return snprintf(s->refusal, sizeof s->refusal, "folders nested deeper than %d (%s)",
                        MAX_DEPTH, rel), -1;
    DIR *d = fdopendir(dirfd);
    if (!d)
        return snprintf(s->refusal, sizeof s->refusal, "cannot read %s: %s", rel, strerror(errno)), -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        if (++*entries > MAX_ENTRIES) {
            snprintf(s->refusal, sizeof s->refusal, "more than %d files and folders", MAX_ENTRIES);
            rc = -1;
            break;
        }
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            snprintf(s->refusal, sizeof s->refusal, "cannot inspect %s: %s", path, strerror(errno));
            rc = -1;
        } else if (S_ISLNK(st.st_mode)) {
            char target[512];
            ssize_t n = readlinkat(dirfd, e->d_name, target, sizeof target - 1);
            target[n > 0 ? n : 0] = 0;
            snprintf(s->refusal, sizeof s->refusal,
                     "%s is a symbolic link (to %s): symbolic links are refused and never "
                     "followed; submit the file itself", path, target);
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (fd < 0) {
                snprintf(s->refusal, sizeof s->refusal, "cannot open %s: %s", path, strerror(errno));
                rc = -1;
            } else {
                rc = walk(s, fd, path, depth + 1, entries);
            }
        } else if (!S_ISREG(st.st_mode)) {
            snprintf(s->refusal, sizeof s->refusal,
                     "%s is a special file (a pipe, socket or device), not a plain file", path);
            rc = -1;
        } else {
            char **held = realloc(s->held, (size_t)(s->n_held + 1) * sizeof *held);
            if (!held)
                die("out of memory");
            s->held = held;
            s->held[s->n_held++] = xstrdup(path);
        }
    }
    closedir(d);
    return rc;
}

/* The folder REL (a path inside the submission, "" for its top) opened a part at a time, never
 * through a link; -1 when it cannot be. */
static int open_folder(int subfd, const char *rel)
{
    char part[2048];
    snprintf(part, sizeof part, "%s", rel);
    int fd = dup(subfd);
    for (char *name = strtok(part, "/"); name && fd >= 0; name = strtok(NULL, "/")) {
        const int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    return fd;
}

/* The file REL of the submission, whole, into *buf and *n: 0, or -1 with the reason in
 * s->refusal. */
static int read_submitted(student *s, int subfd, const char *rel, char **buf, size_t *n)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    const char *file = slash ? slash + 1 : rel;
    if (slash)
        *slash = 0;
    const int dfd = open_folder(subfd, slash ? dir : "");
    const int fd = dfd < 0 ? -1 : openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (dfd >= 0)
        close(dfd);
    if (fd < 0)
        return snprintf(s->refusal, sizeof s->refusal, "%s cannot be opened: %s", rel,
                        strerror(errno)), -1;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return snprintf(s->refusal, sizeof s->refusal, "%s is not a plain file", rel), -1;
    }
    if (st.st_size > FILE_CAP) {
        close(fd);
        return snprintf(s->refusal, sizeof s->refusal, "%s is %lld bytes; the limit is %d", rel,
                        (long long)st.st_size, FILE_CAP), -1;
    }
    char *b = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    ssize_t r;
    while (b && got <= (size_t)st.st_size && (r = read(fd, b + got, (size_t)st.st_size + 1 - got)) > 0)
        got += (size_t)r;
    close(fd);
    if (!b)
        die("out of memory");
    if (got > (size_t)st.st_size) { /* grew while being read */
        free(b);
        return snprintf(s->refusal, sizeof s->refusal, "%s changed while it was read", rel), -1;
    }
    *buf = b;
    *n = got;
    return 0;
}

/* Where lab k's work is looked for: REL ("01-coalescing/coalescing.cu") at the top of the
 * submission, or inside a folder named labs at any depth (a whole checkout handed in). */
static int is_lab_place(const char *path, const char *rel)
{
    const size_t lp = strlen(path), lr = strlen(rel);
    if (!strcmp(path, rel))
        return 1;
    if (lp < lr + 5 || strcmp(path + lp - lr, rel) || memcmp(path + lp - lr - 5, "labs/", 5))
        return 0;
    return lp == lr + 5 || path[lp - lr - 6] == '/';
}

/* A file that looks like lab k's put elsewhere: its name (coalescing.cu), or a .cu file whose
 * name holds the lab's name (coalescing_lab1.cu). Never graded: named with where it belongs. */
static int looks_like_lab(const char *path, int k)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const size_t lb = strlen(base);
    return lb > 3 && !strcmp(base + lb - 3, ".cu") && strstr(base, all_labs[k]->name);
}

static int add_helper(void *ctx, const char *rel, const char *bytes, size_t len)
{
    helper **tail = ctx, *h = calloc(1, sizeof *h);
    if (!h || !(h->bytes = malloc(len ? len : 1)))
        die("out of memory");
    h->rel = xstrdup(rel);
    memcpy(h->bytes, bytes, len);
    h->size = len;
    while (*tail)
        tail = &(*tail)->next;
    *tail = h;
    return 0;
}

/* Lab k's work in submission s (open as SUBFD): its file and the helpers it includes into
 * s->file[k] and s->helpers[k], or the reason it has none in s->absent[k] and
 * s->absent_detail[k]. -1 with s->refusal when the submission is refused (two different
 * files for one lab; a file or helper past the limits). */
static int find_lab_work(student *s, int subfd, int k)
{
    char rel[200];
    lab_student_rel(all_labs[k], rel, sizeof rel);
    int found = -1;
    for (int i = 0; i < s->n_held; i++) {
        if (!is_lab_place(s->held[i], rel))
            continue;
        char *buf = NULL;
        size_t n = 0;
        if (read_submitted(s, subfd, s->held[i], &buf, &n))
            return -1;
        if (found >= 0 && (n != s->size[k] || memcmp(buf, s->file[k], n))) {
            free(buf);
            char a[600], b[600];
            text_visible(a, sizeof a, s->held[found], 0);
            text_visible(b, sizeof b, s->held[i], 0);
            return snprintf(s->refusal, sizeof s->refusal,
                            "two different files for lab %s, %s and %s: hand in one (at %s, or "
                            "in a labs/ folder)", all_labs[k]->number, a, b, rel), -1;
        }
        if (found >= 0) {
            free(buf);
            continue;
        }
        found = i;
        s->file[k] = buf;
        s->size[k] = n;
        s->theirs[k] = 1;
    }
    if (found >= 0) {
        /* its helpers, from its folder */
        char dir[2048], err[1024];
        snprintf(dir, sizeof dir, "%s", s->held[found]);
        *strrchr(dir, '/') = 0;
        const int dfd = open_folder(subfd, dir);
        if (dfd < 0)
            return snprintf(s->refusal, sizeof s->refusal, "%s cannot be opened", dir), -1;
        const char *base = strrchr(rel, '/') + 1;
        const char *reserved[] = {base, NULL};
        char shown[600];
        text_visible(shown, sizeof shown, dir, 0);
        const int rc = helper_files(dfd, shown, s->file[k], s->size[k], reserved, add_helper,
                                    &s->helpers[k], err, sizeof err);
        close(dfd);
        if (rc)
            return snprintf(s->refusal, sizeof s->refusal, "%s", err), -1;
        return 0;
    }
    /* None: a file that looks like the lab's elsewhere is named with the fix; otherwise what
     * the submission held, a few names. */
    for (int i = 0; i < s->n_held; i++)
        if (looks_like_lab(s->held[i], k)) {
            s->absent[k] = ABSENT_MISPLACED;
            text_visible(s->absent_detail[k], sizeof s->absent_detail[k], s->held[i], 0);
            return 0;
        }
    s->absent[k] = ABSENT_NO_FILE;
    char *d = s->absent_detail[k];
    const size_t cap = sizeof s->absent_detail[k];
    size_t w = 0;
    int shown = 0;
    for (int i = 0; i < s->n_held && shown < 4; i++, shown++) {
        char name[120];
        text_visible(name, sizeof name, s->held[i], 0);
        if (w + strlen(name) + 2 + 24 >= cap)
            break;
        w += (size_t)snprintf(d + w, cap - w, "%s%s", shown ? ", " : "", name);
    }
    if (s->n_held > shown)
        snprintf(d + w, cap - w, " (+%d more)", s->n_held - shown);
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Look at one entry of SUBMISSIONS: refuse it with a reason, or load the files it will be
 * graded with; then fingerprint it. */
static void scan_student(student *s)
{
    hash128 h;
    hash_init(&h);
    hash_field(&h, s->name, strlen(s->name));
    hash_hex(&h, s->id, sizeof s->id);
    s->id[0] = 's'; /* "s" + 31 hex digits of the name's hash */
    s->id[32] = 0;

    struct stat st;
    if (fstatat(B.subs_fd, s->name, &st, AT_SYMLINK_NOFOLLOW)) {
        snprintf(s->refusal, sizeof s->refusal, "cannot inspect it: %s", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        char target[512];
        ssize_t n = readlinkat(B.subs_fd, s->name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        snprintf(s->refusal, sizeof s->refusal,
                 "the submission is a symbolic link (to %s), not a folder; symbolic links are "
                 "refused and never followed", target);
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(s->refusal, sizeof s->refusal,
                 "not a folder: each submission is a folder laid out like labs/");
    } else {
        int fd = openat(B.subs_fd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        int entries = 0;
        if (fd < 0) {
            snprintf(s->refusal, sizeof s->refusal, "cannot open it: %s", strerror(errno));
        } else if (walk(s, dup(fd), "", 0, &entries) == 0 &&
                   (qsort(s->held, (size_t)s->n_held, sizeof *s->held, by_path), 1)) {
            for (int k = 0; k < n_all_labs && !s->refusal[0]; k++)
                if (find_lab_work(s, fd, k) < 0)
                    break;
        }
        if (fd >= 0)
            close(fd);
    }
    /* Labs left out are graded as the workbook's skeleton (B.skeleton: never the checkout's
     * edits), and named as work not submitted (the reports say "no submission for lab NN" and
     * why, not a failure of the student's code): so is a file byte for byte the skeleton. */
    for (int k = 0; k < n_all_labs && !s->refusal[0]; k++) {
        if (s->file[k]) {
            if (s->size[k] == B.skeleton_size[k] && !memcmp(s->file[k], B.skeleton[k], s->size[k]))
                s->absent[k] = ABSENT_SKELETON;
            continue;
        }
        s->file[k] = malloc(B.skeleton_size[k] + 1);
        if (!s->file[k])
            die("out of memory");
        memcpy(s->file[k], B.skeleton[k], B.skeleton_size[k]);
        s->size[k] = B.skeleton_size[k];
    }

    hash_init(&h);
    hash_field(&h, "grade-batch fingerprint 2", 25);
    hash_field(&h, B.seed, strlen(B.seed));
    hash_field(&h, B.labs_arg, strlen(B.labs_arg));
    hash_field(&h, S.emu ? "emu" : "auto", S.emu ? 3 : 4);
    hash_field(&h, B.config_text, B.config_len);
    /* The lab manifests compiled into this grader, each as a whole (grader/build/manifest.h):
     * a changed check, point, pass mark, limit, hint or entry point regrades. */
    for (int k = 0; k < n_all_labs; k++) {
        const size_t n = manifest_text(all_labs[k], NULL, 0) + 1;
        char *text = malloc(n);
        if (!text)
            die("out of memory");
        manifest_text(all_labs[k], text, n);
        hash_field(&h, text, n - 1);
        free(text);
    }
    hash_field(&h, s->name, strlen(s->name));
    hash_field(&h, s->refusal, strlen(s->refusal));
    for (int k = 0; k < n_all_labs && !s->refusal[0]; k++) {
        hash_field(&h, s->file[k], s->size[k]);
        for (const helper *x = s->helpers[k]; x; x = x->next) {
            hash_field(&h, x->rel, strlen(x->rel));
            hash_field(&h, x->bytes, x->size);
        }
    }
    hash_hex(&h, s->fingerprint, sizeof s->fingerprint);
}

static void free_student(student *s)
{
    for (int k = 0; k < ROW_MAX_LABS; k++) {
        free(s->file[k]);
        for (helper *x = s->helpers[k], *next; x; x = next) {
            next = x->next;
            free(x->rel);
            free(x->bytes);
            free(x);
        }
    }
    for (int i = 0; i < s->n_held; i++)
        free(s->held[i]);
    free(s->held);
    free(s->name);
    memset(s, 0, sizeof *s);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of SUBMISSIONS but . and .., sorted by bytes. */
static char **list_students(int *count)
{
    int fd = dup(B.subs_fd);
    DIR *d = fdopendir(fd);
    if (!d)
        die("cannot read SUBMISSIONS=%s: %s", S.submissions, strerror(errno));
    int n = 0, cap = 64;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        if (!names)
            die("out of memory");
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    *count = n;
    return names;
}

/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                     */

static void student_dir(const student *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s/students/%s", B.out, s->id);
}

static void init_row(grade_row *row, const student *s)
{
    memset(row, 0, sizeof *row);
    row->tamper_proof = -1;
    row->name = s->name;
    snprintf(row->id, sizeof row->id, "%s", s->id);
    for (int k = 0; k < n_all_labs; k++) {
        row->selected[k] = B.selected[k];
        row->absent[k] = s->refusal[0] ? 0 : s->absent[k];
        row->absent_detail[k] = s->absent_detail[k];
        row->lab_max[k] = B.lab_max[k];
        if (B.selected[k])
            row->max += B.lab_max[k];
    }
}

/* record.json: the row, the name's exact bytes and the fingerprint. Written last. */
static void write_record(const student *s, const grade_row *row)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    student_dir(s, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/record.json", dir);
    atomic_file a;
    FILE *f = atomic_open(&a, path);
    json_writer w;
    json_init(&w, f);
    json_object_begin(&w, NULL);
    json_int(&w, "schema", 1);
    char *hex = malloc(strlen(s->name) * 2 + 1);
    for (size_t i = 0; s->name[i]; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)s->name[i]);
    hex[strlen(s->name) * 2] = 0;
    json_string(&w, "name_hex", hex);
    free(hex);
    json_string(&w, "id", s->id);
    json_string(&w, "fingerprint", s->fingerprint);
    json_string(&w, "state", row->state);
    json_int(&w, "tamper_proof", row->tamper_proof);
    json_object_begin(&w, "labs");
    for (int k = 0; k < n_all_labs; k++) {
        if (!row->selected[k])
            continue;
        json_object_begin(&w, all_labs[k]->name);
        json_int(&w, "score", row->lab_score[k]);
        json_int(&w, "max", row->lab_max[k]);
        json_object_end(&w);
    }
    json_object_end(&w);
    json_int(&w, "total", row->total);
    json_int(&w, "max", row->max);
    json_int(&w, "exit_status", row->exit_status);
    json_string(&w, "reason", row->reason);
    json_object_end(&w);
    fputc('\n', f);
    atomic_commit(&a);
}

/* The row of a record whose fingerprint matches s; 0, or -1 when there is none. */
static int read_record(const student *s, grade_row *row)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], err[512];
    student_dir(s, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/record.json", dir);
    if (access(path, F_OK))
        return -1;
    jv *r = jv_parse_file(path, 1 << 20, err, sizeof err);
    if (!r) {
        fprintf(stderr, "grade-batch: warning: %s; grading this student again\n", err);
        return -1;
    }
    int ok = !strcmp(jv_str(jv_get(r, "fingerprint"), ""), s->fingerprint) &&
             !strcmp(jv_str(jv_get(r, "id"), ""), s->id);
    if (ok) {
        init_row(row, s);
        const char *state = jv_str(jv_get(r, "state"), "missing");
        snprintf(row->state, sizeof row->state, "%s", state);
        const jv *labs = jv_get(r, "labs");
        for (int k = 0; k < n_all_labs; k++) {
            if (!row->selected[k])
                continue;
            const jv *l = jv_get(labs, all_labs[k]->name);
            if (!l)
                ok = 0;
            row->lab_score[k] = (int)jv_num(jv_get(l, "score"), 0);
            row->lab_max[k] = (int)jv_num(jv_get(l, "max"), 0);
        }
        row->total = (int)jv_num(jv_get(r, "total"), 0);
        row->max = (int)jv_num(jv_get(r, "max"), 0);
        row->exit_status = (int)jv_num(jv_get(r, "exit_status"), 2);
        row->tamper_proof = (int)jv_num(jv_get(r, "tamper_proof"), -1);
        snprintf(row->reason, sizeof row->reason, "%s", jv_str(jv_get(r, "reason"), ""));
    }
    jv_free(r);
    return ok ? 0 : -1;
}

/* One student's exports beside the record: Gradescope, JUnit, Markdown, HTML. */
static void write_exports(const char *dir, const grade_row *row, const jv *results)
{
    char path[PATH_MAX + 32];
    atomic_file a;
    snprintf(path, sizeof path, "%s/gradescope.json", dir);
    write_gradescope(atomic_open(&a, path), row, results);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/junit.xml", dir);
    FILE *f = atomic_open(&a, path);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"CUDA workbook\">\n", f);
    write_junit_suites(f, row, results);
    fputs("</testsuites>\n", f);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/report.md", dir);
    write_markdown(atomic_open(&a, path), row, results);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/report.html", dir);
    write_html(atomic_open(&a, path), row, results);
    atomic_commit(&a);
}

/* ------------------------------------------------------------------------------------------ */
/* Grading one student (in a keeper process of its own)                                        */

/* The student's copy: OUT/work/<id>/tree, holding the lab files of the submission only. */
static void write_tree(const student *s, const char *work, const char *tree)
{
    char path[PATH_MAX * 2];
    rm_tree(work);
    mkdirs(tree);
    for (int k = 0; k < n_all_labs; k++) {
        lab_student_file(tree, all_labs[k], path, sizeof path);
        *strrchr(path, '/') = 0;
        mkdirs(path);
        const size_t folder = strlen(path);
        path[folder] = '/';
        write_whole(path, s->file[k], s->size[k]);
        for (const helper *x = s->helpers[k]; x; x = x->next) { /* (names within the rule) */
            snprintf(path + folder + 1, sizeof path - folder - 1, "%s", x->rel);
            char *slash = strrchr(path, '/');
            *slash = 0;
            mkdirs(path);
            *slash = '/';
            write_whole(path, x->bytes, x->size);
        }
    }
}

/* The preparer (schedule.h's PREPARE, on the CPUs beside another student's grading): the
 * student's tree, and make's `runners` for it: its objects compiled and vetted in the compile
 * sandbox, as grade.sh's build step would, which then finds them built; on a GPU, the CPU
 * emulator's copy too, which the WHERE line needs. No student code runs here. Its make runs at
 * a lower priority than the grading beside it, which times with a host clock. What it printed
 * is in OUT/work/<id>/prepare.log; a build that failed is graded as such by grade.sh (which
 * builds again and says why). Never returns. */
static void preparer(const student *s)
{
    stop_on_signals(800, NULL);
    char work[PATH_MAX], tree[PATH_MAX + 8], log[PATH_MAX + 16];
    snprintf(work, sizeof work, "%s/work/%s", B.out, s->id);
    snprintf(tree, sizeof tree, "%s/tree", work);
    write_tree(s, work, tree);
    snprintf(log, sizeof log, "%s/prepare.log", work);
    char a_student[PATH_MAX + 16], a_lab[1100], a_build[PATH_MAX], a_jobs[32];
    snprintf(a_student, sizeof a_student, "STUDENT=%s", tree);
    snprintf(a_lab, sizeof a_lab, "BATCH_LABS=%s", B.labs_arg);
    for (char *p = a_lab; *p; p++)
        if (*p == ',')
            *p = ' ';
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(a_jobs, sizeof a_jobs, "-j%ld", cpus > 1 ? cpus : 1);
    const int passes = S.emu ? 1 : 2; /* on a GPU: its objects, then the emulator's for WHERE */
    for (int pass = 0; pass < passes; pass++) {
        char *argv[12] = {getenv("MAKE") ? getenv("MAKE") : "make", "-s", "--no-print-directory",
                          a_jobs, "-k", "batch-prepare", a_student, a_lab};
        int argc = 8;
        if (S.emu || pass == 1)
            argv[argc++] = "EMU=1";
        if (S.build) {
            snprintf(a_build, sizeof a_build, "BUILD=%s", S.build);
            argv[argc++] = a_build;
        }
        argv[argc] = NULL;
        pid_t pid = stop_fork(SIGTERM);
        if (pid < 0)
            _exit(2);
        if (pid == 0) {
            const int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            const int null = open("/dev/null", O_RDONLY);
            dup2(null, 0);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            unsetenv("MAKEFLAGS");
            unsetenv("MFLAGS");
            unsetenv("MAKELEVEL");
            unsetenv("GNUMAKEFLAGS");
            unsetenv("MAKEOVERRIDES");
            if (nice(10) == -1 && errno) { /* (a lower priority only; nothing depends on it) */
            }
            execvp(argv[0], argv);
            _exit(127);
        }
        int status;
        waitpid(pid, &status, 0);
        stop_forget(pid);
    }
    _exit(0);
}

#define LOG_CAP (1 << 20) /* bytes of one check's or build's log kept beside the report */

/* The report without make's closing "make: *** [Makefile:N: grade] Error 1" (make says so of
 * every grade that lost a point; the report's "Exit status" line already says it, and the
 * line names the grader's Makefile). Only a whole line of exactly that form, which the
 * student's code cannot print (its output is under the log's margin). Returns the new length. */
static size_t drop_make_error(char *text, size_t n)
{
    static const char head[] = "make: *** [", tail[] = ": grade] Error ";
    size_t w = 0;
    for (size_t r = 0; r < n;) {
        const char *nl = memchr(text + r, '\n', n - r);
        const size_t len = nl ? (size_t)(nl - (text + r)) + 1 : n - r;
        const char *t = len > sizeof head ? memmem(text + r, len, tail, sizeof tail - 1) : NULL;
        const int drop = !memcmp(text + r, head, sizeof head - 1) && t &&
                         t + sizeof tail - 1 + strspn(t + sizeof tail - 1, "0123456789") + 1 ==
                             text + r + len;
        if (!drop)
            memmove(text + w, text + r, len), w += len;
        r += len;
    }
    return w;
}

/* A build log without make's own lines ("make[1]: *** [Makefile:N: build/...] Error 1"): they
 * name the grader's build tree, and the compiler's lines above them say what failed, at the
 * student's line. Returns the new length. */
static size_t drop_make_lines(char *text, size_t n)
{
    size_t w = 0;
    for (size_t r = 0; r < n;) {
        const char *nl = memchr(text + r, '\n', n - r);
        const size_t len = nl ? (size_t)(nl - (text + r)) + 1 : n - r;
        const int make = (len >= 6 && !memcmp(text + r, "make: ", 6)) ||
                         (len >= 5 && !memcmp(text + r, "make[", 5));
        if (!make)
            memmove(text + w, text + r, len), w += len;
        r += len;
    }
    return w;
}

/* buf[0..n) with every occurrence of `cut` left out; returns the new length. */
static size_t cut_out(char *buf, size_t n, const char *cut)
{
    const size_t l = strlen(cut);
    size_t w = 0;
    for (size_t r = 0; r < n;) {
        if (l && r + l <= n && !memcmp(buf + r, cut, l)) {
            r += l;
            continue;
        }
        buf[w++] = buf[r++];
    }
    return w;
}

/* The logs the report names by their own names (coalescing.6.log, coalescing.build.log),
 * copied beside report.txt, each cut at LOG_CAP, with the batch's folders left out of them as
 * out of the report (the student's file is 01-coalescing/coalescing.cu there too): what the
 * student's code printed and the compiler said, for the student. Regular files named *.log
 * only (not the harness's or the WHERE hint's own), read with O_NOFOLLOW. */
static void keep_logs(const char *tree, const char *gdir, const char *sdir)
{
    DIR *old = opendir(sdir); /* an earlier grade's logs go first */
    for (struct dirent *e; old && (e = readdir(old));) {
        const size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".log"))
            unlinkat(dirfd(old), e->d_name, 0);
    }
    if (old)
        closedir(old);
    DIR *d = opendir(gdir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".log") || e->d_name[0] == '.' ||
            !strcmp(e->d_name, "grader.build.log") || strstr(e->d_name, ".harness.") ||
            strstr(e->d_name, ".where."))
            continue;
        char from[PATH_MAX * 2], to[PATH_MAX * 2];
        snprintf(from, sizeof from, "%s/%s", gdir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", sdir, e->d_name);
        const int fd = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        const size_t want = st.st_size < LOG_CAP ? (size_t)st.st_size : LOG_CAP;
        char *buf = malloc(want + 1);
        size_t n = 0;
        ssize_t got;
        while (buf && n < want && (got = read(fd, buf + n, want - n)) > 0)
            n += (size_t)got;
        close(fd);
        if (buf) {
            char prefix[PATH_MAX + 2];
            snprintf(prefix, sizeof prefix, "%s/", tree);
            n = cut_out(buf, n, prefix);
            snprintf(prefix, sizeof prefix, "%s/", gdir);
            n = cut_out(buf, n, prefix);
            if (strstr(e->d_name, ".build."))
                n = drop_make_lines(buf, n);
            write_whole(to, buf, n);
        }
        free(buf);
    }
    closedir(d);
}

/* grade.sh on `tree`, its report folder `gdir`, started in a process group of its own with its
 * stdout and stderr into the pipe `fds` (the read end stays here). Returns its pid. */
static pid_t keeper_start(const char *tree, const char *gdir, const char *gpu, int fds[2])
{
    char a_student[PATH_MAX + 16], a_grade[PATH_MAX + 16], a_seed[64], a_lab[1100], a_build[PATH_MAX];
    snprintf(a_student, sizeof a_student, "STUDENT=%s", tree);
    snprintf(a_grade, sizeof a_grade, "GRADE_DIR=%s", gdir);
    snprintf(a_seed, sizeof a_seed, "SEED=%s", B.seed);
    snprintf(a_lab, sizeof a_lab, "LAB=%s", B.labs_arg);
    /* the student's code may not read the other students' submissions, trees or reports */
    char a_hide[2 * PATH_MAX + 16];
    snprintf(a_hide, sizeof a_hide, "GRADER_HIDE=%s %s", B.out, S.submissions);
    /* the report names files as the student's submission has them, never this batch's folders */
    char *argv[10] = {"grader/run/grade.sh", a_student, a_grade, a_seed, a_lab, a_hide,
                      "GRADE_PATHS=submission"};
    int argc = 7;
    if (S.emu)
        argv[argc++] = "EMU=1";
    if (S.build) {
        snprintf(a_build, sizeof a_build, "BUILD=%s", S.build);
        argv[argc++] = a_build;
    }
    argv[argc] = NULL;

    if (pipe(fds))
        die("pipe: %s", strerror(errno));
    pid_t g = stop_fork(SIGTERM);
    if (g < 0)
        die("fork: %s", strerror(errno));
    if (g == 0) {
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        /* A make around us must not pass its variables (SUBMISSIONS, its jobserver) down. */
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
        unsetenv("GNUMAKEFLAGS");
        unsetenv("MAKEOVERRIDES");
        if (gpu)
            setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
        /* several GPUs: a lab timed across the host link they share, one GPU at a time */
        char link_lock[PATH_MAX + 32];
        snprintf(link_lock, sizeof link_lock, "%s/.host-link.lock", B.out);
        if (gpu && B.workers > 1)
            setenv("GRADE_HOST_LINK_LOCK", link_lock, 1);
        else
            unsetenv("GRADE_HOST_LINK_LOCK");
        /* a grade that is not tamper-proof is refused unless asked for */
        setenv("GRADER_REQUIRE_ISOLATION", S.allow_unisolated ? "0" : "1", 1);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(2);
    }
    close(fds[1]);
    return g;
}

/* The report: what the student would have seen, capped (REPORT_CAP bytes into `report`, the
 * rest counted in *dropped). Read until grade.sh (`g`) has exited and the pipe `fd` is quiet;
 * anything of its group still holding the pipe is then killed. Returns grade.sh's exit status
 * (2 if it did not exit). */
static int keeper_read(pid_t g, int fd, char *report, size_t *kept, size_t *dropped)
{
    int status = 0, exited = 0, quiet = 0;
    struct timespec exit_time = {0, 0}, now;
    *kept = *dropped = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 200);
        if (r > 0) {
            char buf[65536];
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0)
                break;
            size_t room = REPORT_CAP - *kept, take = (size_t)n < room ? (size_t)n : room;
            memcpy(report + *kept, buf, take);
            *kept += take;
            *dropped += (size_t)n - take;
            quiet = 0;
        } else if (exited && ++quiet > 10) {
            break;
        }
        if (!exited && waitpid(g, &status, WNOHANG) == g) {
            exited = 1;
            clock_gettime(CLOCK_MONOTONIC, &exit_time);
        }
        /* Something grade.sh left behind that keeps writing: stop listening 5 s after it ended. */
        if (exited && clock_gettime(CLOCK_MONOTONIC, &now) == 0 && now.tv_sec - exit_time.tv_sec > 5)
            break;
    }
    if (!exited)
        waitpid(g, &status, 0);
    kill(-g, SIGKILL);
    stop_forget(g);
    stop_sweep(1000); /* what outlived its parent below grade.sh was adopted here: it ends */
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* <sdir>/report.txt: the work not submitted, named before the checks it explains, then the
 * report (report[0..kept), NUL-terminated here) and how much of it was cut. */
static void keeper_write_report(const student *s, const char *sdir, char *report, size_t kept,
                                size_t dropped)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/report.txt", sdir);
    atomic_file a;
    FILE *f = atomic_open(&a, path);
    /* The grader shows student text visible already; whatever else reached the pipe (a tool's
     * colours, a stray control) is shown visible here, so the file reads as the grader wrote. */
    report[kept] = 0;
    kept = drop_make_error(report, kept);
    {   /* work not submitted, named before the checks it explains */
        grade_row named;
        init_row(&named, s);
        for (int k = 0; k < n_all_labs; k++) {
            char absent[400];
            row_absent_text(&named, k, absent, sizeof absent);
            if (named.selected[k] && absent[0])
                fprintf(f, "NOTE: %s.\n", absent);
        }
    }
    text_put_n(f, report, kept, TEXT_KEEP_NEWLINES);
    if (dropped)
        fprintf(f, "\n[report cut here: %zu more bytes were not kept]\n", dropped);
    atomic_commit(&a);
}

/* The student objects built for a tree (results.json's student_objects) are not needed again
 * (a regrade rebuilds them). The driver records where make put them (the Makefile's
 * STUDENT_OBJS), always under BUILD: anything else is left alone. */
static void keeper_remove_objects(const jv *results)
{
    char path[PATH_MAX * 2];
    const char *built = S.build ? S.build : "build";
    const char *objs = jv_str(jv_get(results, "student_objects"), "");
    const size_t bl = strlen(built), ol = strlen(objs);
    if (ol > bl + 1 && !strncmp(objs, built, bl) && objs[bl] == '/' && !strstr(objs, "/../") &&
        strcmp(objs + ol - 3, "/..") != 0) {
        rm_tree(objs);
        if (!strncmp(objs + bl, "/gpu/", 5)) { /* the emulator's copy the preparer built */
            snprintf(path, sizeof path, "%s/emu/%s", built, objs + bl + 5);
            rm_tree(path);
        }
    }
}

/* The keeper (schedule.h's GRADE, alone on its GPU): run grade.sh on the tree the preparer
 * wrote (written here if it is not there), in its own process group with generated paths
 * only, keep its report (capped), and write the exports and the record. Never returns. It
 * is started with stop_fork(SIGTERM): when the batch stops or dies, it stops grade.sh's
 * group (grade.sh passes the stop to make, make to the driver, which ends its own) and
 * removes its temporary files (grader/wire/stop.h). */
static void keeper(const student *s, const char *gpu)
{
    stop_on_signals(800, NULL);

    char work[PATH_MAX], tree[PATH_MAX + 8], gdir[PATH_MAX + 8], sdir[PATH_MAX], path[PATH_MAX * 2];
    snprintf(work, sizeof work, "%s/work/%s", B.out, s->id);
    snprintf(tree, sizeof tree, "%s/tree", work);
    snprintf(gdir, sizeof gdir, "%s/grade", work);
    student_dir(s, sdir, sizeof sdir);
    struct stat st;
    if (stat(tree, &st) || !S_ISDIR(st.st_mode))
        write_tree(s, work, tree);
    rm_tree(gdir);
    mkdirs(gdir);
    mkdirs(sdir);

    int fds[2];
    const pid_t g = keeper_start(tree, gdir, gpu, fds);
    char *report = malloc(REPORT_CAP + 1);
    size_t kept, dropped;
    const int grade_status = keeper_read(g, fds[0], report, &kept, &dropped);
    keeper_write_report(s, sdir, report, kept, dropped);
    free(report);

    grade_row row;
    init_row(&row, s);
    char err[600];
    snprintf(path, sizeof path, "%s/results.json", gdir);
    /* No results at all: the grader itself did not run (a missing toolkit, a full disk), which
     * says nothing about the student. No record, so that the next run grades them again. */
    if (access(path, F_OK))
        _exit(4);
    jv *results = access(path, F_OK) == 0 ? jv_parse_file(path, RESULTS_CAP, err, sizeof err) : NULL;
    row_from_results(&row, results, grade_status);
    if (!results && access(path, F_OK) == 0)
        snprintf(row.reason, sizeof row.reason, "the grader's report could not be read: %s", err);
    if (results) { /* keep the full report beside the record */
        char copy[PATH_MAX + 16];
        snprintf(copy, sizeof copy, "%s/results.json", sdir);
        size_t n;
        char *text = read_whole(path, &n);
        write_whole(copy, text, n);
        free(text);
    }
    keep_logs(tree, gdir, sdir);
    write_exports(sdir, &row, results);
    write_record(s, &row);
    keeper_remove_objects(results);
    jv_free(results);
    _exit(0);
}

/* ------------------------------------------------------------------------------------------ */
/* The run                                                                                     */

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
        printf(": %d/%d (exit %d)%s", row->total, row->max, row->exit_status, how);
        const char *sep = "; no submission for lab ";
        for (int k = 0; k < n_all_labs; k++)
            if (row->selected[k] && row->absent[k])
                printf("%s%s", sep, all_labs[k]->number), sep = ", ";
        putchar('\n');
    }
    fflush(stdout);
}

/* Build what every student shares once, before any worker starts (workers then only build
 * their own objects). Runs make with fixed arguments only. */
static void prebuild_pass(int emu)
{
    char labs[1200];
    snprintf(labs, sizeof labs, "BATCH_LABS=%s", B.labs_arg);
    for (char *p = labs; *p; p++)
        if (*p == ',')
            *p = ' ';
    char a_build[PATH_MAX];
    char *argv[8] = {getenv("MAKE") ? getenv("MAKE") : "make", "-s", "--no-print-directory",
                     "batch-prebuild", labs};
    int argc = 5;
    if (emu)
        argv[argc++] = "EMU=1";
    if (S.build) {
        snprintf(a_build, sizeof a_build, "BUILD=%s", S.build);
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
static void prebuild(void)
{
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    printf("Building what every student shares (the grader, each lab's harness and reference)...\n");
    prebuild_pass(S.emu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const int gpu = !S.emu && list_gpus(NULL, 0) > 0;
    if (gpu)
        prebuild_pass(1);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    const double a = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    const double b = (double)(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
    if (gpu)
        printf("Built in %.1f s: the GPU's pieces %.1f s, the CPU emulator's (the WHERE line's count) "
               "%.1f s (make all builds both ahead).\n", a + b, a, b);
    else
        printf("Built in %.1f s.\n", a);
}

/* A process the batch started: a student's preparer or keeper. */
typedef struct running_stage {
    pid_t pid;   /* 0: free entry */
    int student; /* index into the queue */
    int grade;   /* 1: the keeper (grading), 0: the preparer */
    int gpu;     /* the keeper's GPU slot (B.gpu) */
} running_stage;

/* The students of this task (S.task of S.tasks) that still need grading, into queue; those
 * with a record already or refused before grading are reported here. Returns how many queued. */
static int queue_ungraded(student *list, int n, int mine, int *done, int *queue)
{
    int nq = 0;
    for (int i = 0; i < n; i++) {
        if (S.tasks && i % S.tasks != S.task)
            continue;
        student *s = &list[i];
        grade_row row;
        if (read_record(s, &row) == 0) {
            print_outcome(++*done, mine, s, &row, ", graded earlier");
            continue;
        }
        if (s->refusal[0]) {
            char dir[PATH_MAX];
            student_dir(s, dir, sizeof dir);
            mkdirs(dir);
            init_row(&row, s);
            snprintf(row.state, sizeof row.state, "refused");
            snprintf(row.reason, sizeof row.reason, "refused: %s", s->refusal);
            row.exit_status = 1;
            write_exports(dir, &row, NULL);
            write_record(s, &row);
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
static int report_graded(student *s, int status, int mine, int *done, const char *gpu)
{
    grade_row row;
    if (read_record(s, &row) == 0) {
        char on[80] = "";
        if (gpu && B.workers > 1)
            snprintf(on, sizeof on, " on GPU %s", gpu);
        print_outcome(++*done, mine, s, &row, on);
        return 0;
    }
    printf("[%d/%d] ", ++*done, mine);
    show_name(stdout, s->name);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
        printf(": not graded: the grader stopped before writing its results (see "
               "%s/students/%s/report.txt); run the same command again to retry\n",
               B.out, s->id);
    else
        printf(": not graded (the grading process ended with status %d); run the same "
               "command again to retry\n",
               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 1;
}

static int grade_all(student *list, int n)
{
    int mine = 0, done = 0;
    for (int i = 0; i < n; i++)
        mine += S.tasks == 0 || i % S.tasks == S.task;
    int *queue = malloc((n + 1) * sizeof *queue);
    if (!queue)
        die("out of memory");
    const int nq = queue_ungraded(list, n, mine, &done, queue);
    if (nq == 0) {
        free(queue);
        return 0;
    }
    prebuild();
    /* One grade per GPU slot at a time (schedule.h); one preparer at a time, each with make -j
     * over the CPUs, up to one student ready per GPU beyond those grading. */
    sched plan;
    if (sched_init(&plan, nq, B.workers, 1, B.workers + 1))
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
                    preparer(&list[queue[a.student]]);
                keeper(&list[queue[a.student]], B.gpu[a.gpu]);
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
            failed += report_graded(&list[queue[run[k].student]], status, mine, &done, B.gpu[run[k].gpu]);
        }
    }
    sched_free(&plan);
    free(queue);
    return failed;
}

/* The gradebook of every student from the records on disk: CSV, JSON Lines, JUnit XML.
 * Returns how many students have no current record. */
static int merge(student *list, int n)
{
    char path[PATH_MAX + 32];
    atomic_file csv, jsonl, junit;
    snprintf(path, sizeof path, "%s/gradebook.csv", B.out);
    FILE *fc = atomic_open(&csv, path);
    snprintf(path, sizeof path, "%s/gradebook.jsonl", B.out);
    FILE *fj = atomic_open(&jsonl, path);
    snprintf(path, sizeof path, "%s/junit.xml", B.out);
    FILE *fx = atomic_open(&junit, path);
    csv_header(fc);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"CUDA workbook\">\n", fx);
    int missing = 0, graded = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        student *s = &list[i];
        grade_row row;
        jv *results = NULL;
        if (read_record(s, &row)) {
            missing++;
            init_row(&row, s);
            snprintf(row.state, sizeof row.state, "missing");
            snprintf(row.reason, sizeof row.reason,
                     "not graded yet: no result for this submission as it is now (run the same "
                     "command again to resume)");
            row.exit_status = 2;
        } else if (!strcmp(row.state, "graded")) {
            char dir[PATH_MAX], file[PATH_MAX + 32], err[600];
            student_dir(s, dir, sizeof dir);
            snprintf(file, sizeof file, "%s/results.json", dir);
            results = access(file, F_OK) == 0 ? jv_parse_file(file, RESULTS_CAP, err, sizeof err) : NULL;
            graded++;
        } else {
            refused++;
        }
        csv_row(fc, &row);
        jsonl_row(fj, &row);
        write_junit_suites(fx, &row, results);
        jv_free(results);
    }
    fputs("</testsuites>\n", fx);
    atomic_commit(&csv);
    atomic_commit(&jsonl);
    atomic_commit(&junit);
    printf("Gradebook: %s/gradebook.csv (and gradebook.jsonl, junit.xml): %d students, %d graded, "
           "%d refused%s", B.out, n, graded, refused, missing ? ", " : ".\n");
    if (missing)
        printf("%d without a result yet (run the same command again to grade them).\n", missing);
    printf("Each student's report, Gradescope results and HTML page: %s/students/<id>/ "
           "(gradebook.jsonl maps names to ids).\n", B.out);
    return missing;
}

/* export: one results.json to Gradescope, JUnit, Markdown and HTML (the Gradescope kit). */
static int export_one(void)
{
    if (!S.results || !S.dest)
        die("export needs RESULTS=path/to/results.json and DEST=folder (NAME=student optional)");
    char err[600];
    jv *results = jv_parse_file(S.results, RESULTS_CAP, err, sizeof err);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = (char *)(S.name ? S.name : "submission");
    snprintf(row.id, sizeof row.id, "export");
    if (results) {
        const jv *labs = jv_get(results, "labs");
        for (int i = 0; i < jv_len(labs); i++)
            for (int k = 0; k < n_all_labs; k++)
                if (!strcmp(all_labs[k]->name, jv_str(jv_get(jv_at(labs, i), "lab"), "")))
                    row.selected[k] = 1;
    }
    row_from_results(&row, results, results ? 0 : 2);
    if (!results)
        snprintf(row.reason, sizeof row.reason, "the grader's report could not be read: %s", err);
    mkdirs(S.dest);
    write_exports(S.dest, &row, results);
    jv_free(results);
    show_name(stdout, row.name);
    printf(": %d/%d (exit %d); exports in %s\n", row.total, row.max, row.exit_status, S.dest);
    return results ? 0 : 2;
}

/* B.out from OUT= (under the workbook's top folder when relative), made, and never inside the
 * submissions, where it would be graded as a student. */
static void make_output_folder(void)
{
    if (S.out[0] == '/')
        snprintf(B.out, sizeof B.out, "%s", S.out);
    else
        snprintf(B.out, sizeof B.out, "%s/%s", B.root, S.out);
    require_plain_path("OUT", B.out);
    mkdirs(B.out);
    char real_subs[PATH_MAX], real_out[PATH_MAX];
    if (realpath(S.submissions, real_subs) && realpath(B.out, real_out)) {
        const size_t n = strlen(real_subs);
        if (!strncmp(real_out, real_subs, n) && (real_out[n] == '/' || real_out[n] == 0))
            die("OUT=%s is inside SUBMISSIONS=%s: it would be graded as a student; put it elsewhere",
                B.out, S.submissions);
    }
}

/* B.skeleton: each lab's skeleton as the workbook recorded it (labs/skeletons.sha256), from
 * grader/batch/pristine_skeletons.sh (which says once, for each lab, where this checkout's
 * labs/ is edited): run without a shell into a folder of this process's, read, removed. */
static void load_skeletons(void)
{
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/work/skeletons.%d", B.out, (int)getpid());
    rm_tree(dir);
    fflush(stdout);
    pid_t pid = stop_fork(SIGTERM);
    if (pid < 0)
        die("cannot start grader/batch/pristine_skeletons.sh: %s", strerror(errno));
    if (pid == 0) {
        char *argv[] = {"grader/batch/pristine_skeletons.sh", dir, NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    stop_forget(pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        die("the workbook's own skeletons could not be found (the reason is above); nothing was "
            "graded");
    for (int k = 0; k < n_all_labs; k++) {
        char path[PATH_MAX * 2];
        lab_student_file(dir, all_labs[k], path, sizeof path);
        B.skeleton[k] = read_whole(path, &B.skeleton_size[k]);
        if (!B.skeleton[k])
            die("the skeleton of lab %s was not written to %s", all_labs[k]->number, path);
    }
    rm_tree(dir);
}

/* Every student of SUBMISSIONS=, scanned (scan_student), in list_students' order: *n of them. */
static student *scan_students(int *n)
{
    char **names = list_students(n);
    student *list = calloc(*n ? *n : 1, sizeof *list);
    for (int i = 0; i < *n; i++) {
        list[i].name = names[i];
        scan_student(&list[i]);
    }
    free(names);
    /* Two names with one id would share a folder: refuse the later one (never seen so far). */
    for (int i = 0; i < *n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(list[i].id, list[j].id) && !list[i].refusal[0])
                snprintf(list[i].refusal, sizeof list[i].refusal,
                         "its folder id collides with another student's; rename it");
    return list;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Ctrl-C, SIGTERM, SIGHUP, `timeout`, a Slurm cancel: every grading ends, no file is left
     * half-written; the records written so far are kept for the resume. */
    stop_on_signals(1000, "every grading this batch started has ended. Students graded before "
                          "the stop keep their results: the same command resumes from there.");
    parse_args(argc, argv);
    if (!strcmp(S.cmd, "export"))
        return export_one();
    if (!getcwd(B.root, sizeof B.root) || access("grader/run/grade.sh", X_OK))
        die("run me from the workbook's top folder (through make grade-batch)");
    if (!S.submissions || !*S.submissions)
        die("SUBMISSIONS= is required: the folder with one subfolder per student");
    B.subs_fd = open(S.submissions, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (B.subs_fd < 0)
        die("SUBMISSIONS=%s is not a folder I can read: %s", S.submissions, strerror(errno));
    make_output_folder();
    if (S.build)
        require_plain_path("BUILD", S.build);
    select_labs();
    load_course_config();
    choose_workers();
    mkdirs(B.out);
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/students", B.out);
    mkdirs(sub);
    snprintf(sub, sizeof sub, "%s/work", B.out);
    mkdirs(sub);
    take_lock(S.tasks > 0);
    fix_seed(!S.tasks); /* array tasks read the seed `prepare` wrote; they never write it */

    load_skeletons();
    int n;
    student *list = scan_students(&n);
    if (!strcmp(S.cmd, "prepare")) {
        char labs[sizeof B.labs_arg];
        snprintf(labs, sizeof labs, "%s", B.labs_arg);
        for (char *p = labs; *p; p++)
            if (*p == ',')
                *p = ' ';
        printf("students %d\nseed %s\nlabs %s\n", n, B.seed, labs);
        return 0;
    }
    int rc = 0;
    if (!strcmp(S.cmd, "grade")) {
        printf("Grading %d submission%s in %s (labs: %s) with hidden-case seed %s%s; %d worker%s.\n",
               n, n == 1 ? "" : "s", S.submissions, B.labs_arg, B.seed,
               S.tasks ? "" : " (SEED= reproduces it; the same command resumes)", B.workers,
               B.workers == 1 ? "" : "s");
        rc = grade_all(list, n) ? 1 : 0;
    }
    if (!S.tasks)
        rc |= merge(list, n) ? 1 : 0;
    for (int i = 0; i < n; i++)
        free_student(&list[i]);
    free(list);
    return rc;
}
