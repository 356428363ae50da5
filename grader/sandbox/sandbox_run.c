/* sandbox_run.c - TRUSTED: run one command on a student's file inside the sandbox
 * (grader/sandbox/sandbox.h): the student's compile and vetting.
 *
 *   sandbox-run --work DIR [--student TREE REL [--student-as DEST] [--deps FILE VAR]]
 *               [--copy SRC DEST]... [--visible PATH]...
 *               [--writable DIR]... [--hide DIR]... [--no-proc] [--env NAME=VALUE]...
 *               [--get NAME DEST]... [--wall S] [--cpu S] [--mem MIB] [--file-mib MIB]
 *               [--tasks N] -- COMMAND ARGS...
 *
 * DIR is made afresh and is the only folder the command may write; it runs there. The
 * student's file TREE/REL is copied to DIR/DEST (default DIR/REL; always inside a folder of
 * its own, never where the command runs: the student's files can never stand where the
 * toolkit's, the workbook's or the system's headers are looked up) only if it is a regular
 * file with one name reached without a symbolic link below TREE (a link, a hard link, a FIFO
 * or a device is refused with the reason, and its target is never opened); graded as root,
 * the tree is read with its owner's rights. The helper files it includes go beside it
 * (helper_files.h), and --deps writes FILE, make's record of every file of the tree the
 * compile was given (VAR) and of the names it included that were not there (VAR_ABSENT).
 * Trusted inputs (the contract headers, the vetting script) are copied with --copy. The command sees the system, the toolkit, the --visible paths and DIR:
 * not the checkout, the solutions, other students, the logs nor any device but /dev/null.
 * Each --hide folder (the checkout, the build, the grading output, a batch's submissions)
 * stays out of its view wherever it sits, inside /usr or /opt too; a --visible path or DIR
 * inside one stays visible. --no-proc closes /proc but /proc/cpuinfo (the compile: no mount
 * table, no process's command line; grader/sandbox/sandbox.h says where the kernel allows it).
 * Its output is relayed to stderr as data (common/text.h: control characters shown as
 * escapes) and capped.
 * Afterwards each --get NAME (a regular file in DIR, within the file-size limit) is copied
 * to DEST, and DIR is removed, whatever the command did (what it made is there only to be
 * taken: a compile's object is not left twice on disk).
 *
 *   sandbox-run --probe        prints the kind of sandbox this machine allows the grader
 *                              (namespaces, landlock or none), as grading will find it
 *
 * Exit status: 0 done; 1 the command failed or went past a limit (the message says which);
 * 2 the sandbox could not be set up (the grader's or the machine's fault); 3 the student's
 * file was refused. SIGINT, SIGTERM and SIGHUP end the command and everything it started. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sandbox.h"
#include "helper_files.h"
#include "../../common/text.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOURCE_BYTES (4 << 20) /* a lab file is a few KiB; 4 MiB is no honest one */
#define OUTPUT_CAP (64 << 10)      /* bytes of the command's output relayed */

static const char *work;
static volatile sig_atomic_t stop_sig;
static pid_t child;

/* Graded as root, the student's tree is read with its owner's rights, not root's: the file
 * system's uid and groups become the owner's (their capabilities over files go with them) while
 * the tree is read, and come back for the writing. A tree root owns is read as root (a batch's
 * own copy); no file with a second name is read either way (helper_files.c). */
static gid_t saved_groups[256];
static int n_saved_groups = -1;
static void fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void read_as(uid_t uid, gid_t gid)
{
    if (uid == 0)
        return;
    n_saved_groups = getgroups(256, saved_groups);
    if (n_saved_groups < 0 || setgroups(1, &gid) != 0)
        fail(2, "cannot take the rights of the student's tree's owner: %s", strerror(errno));
    setfsgid(gid);
    setfsuid(uid);
    if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid)
        fail(2, "cannot take the rights of the student's tree's owner");
}
/* The grader's own rights back (fail() takes them first: the work folder is removed as root). */
static void read_as_grader(void)
{
    if (n_saved_groups < 0)
        return;
    setfsuid(0);
    setfsgid(0);
    const int ok = setgroups((size_t)n_saved_groups, saved_groups) == 0 && (uid_t)setfsuid((uid_t)-1) == 0;
    n_saved_groups = -1;
    if (!ok)
        fail(2, "cannot take the grader's own rights back");
}
static void fail(int code, const char *fmt, ...)
{
    read_as_grader();
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* A folder the command made unwritable (chmod 0500) is made writable again, so that what
 * it holds can be removed. */
static int let_owner_write(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag, (void)ftw;
    if (!S_ISDIR(st->st_mode) || (st->st_mode & 0700) == 0700)
        return 0;
    const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); /* (never a link's target) */
    if (fd >= 0) {
        if (fchmod(fd, (st->st_mode & 07777) | 0700) != 0) { /* nothing more to do */
        }
        close(fd);
    }
    return 0;
}

/* Removes the folder `path` and everything in it, links unfollowed; -1 when something stays. */
static int remove_tree(const char *path)
{
    nftw(path, let_owner_write, 16, FTW_PHYS);
    return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The work folder, gone when sandbox-run ends (exit(): done or failed). */
static void remove_work(void)
{
    if (work)
        remove_tree(work);
}

/* mkdir -p of the folders above `path` (inside the work folder). */
static void make_parents(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            fail(2, "cannot make %s: %s", dir, strerror(errno));
        *s = '/';
    }
}

/* Copy the open file `in` to `to` (a new file), at most `max` bytes; -1 when larger. */
static int copy_fd(int in, const char *to, long long max)
{
    make_parents(to);
    const int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (out < 0)
        fail(2, "cannot write %s: %s", to, strerror(errno));
    char buf[65536];
    long long total = 0;
    ssize_t r;
    while ((r = read(in, buf, sizeof buf)) > 0) {
        total += r;
        if (total > max || write(out, buf, (size_t)r) != r) {
            close(out);
            unlink(to);
            return -1;
        }
    }
    close(out);
    return r < 0 ? -1 : 0;
}

/* Why a path is not a regular file, in words. */
static const char *kind_of(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a folder" : "not a regular file";
}

/* What is read of the student's tree, held in memory until it is written into the work folder
 * (read with the student's rights, written with the grader's): the lab file first, then each
 * helper; and the names inside the lab's folder that were included but not there. */
#define MAX_TAKEN (HELPER_MAX_FILES + 1)
typedef struct {
    char rel[MAX_TAKEN][256]; /* inside the lab's folder ("" for the lab file) */
    char *bytes[MAX_TAKEN];
    size_t len[MAX_TAKEN];
    int n;
    char missing[64][256];
    int n_missing;
} taken_files;

static int take_helper(void *ctx, const char *rel, const char *bytes, size_t len)
{
    taken_files *t = ctx;
    if (t->n == MAX_TAKEN || !(t->bytes[t->n] = malloc(len ? len : 1)))
        fail(2, "out of memory for the helper files");
    memcpy(t->bytes[t->n], bytes, len);
    t->len[t->n] = len;
    snprintf(t->rel[t->n++], sizeof t->rel[0], "%s", rel);
    return 0;
}

static int note_missing(void *ctx, const char *rel)
{
    taken_files *t = ctx;
    if (t->n_missing < 64)
        snprintf(t->missing[t->n_missing++], sizeof t->missing[0], "%s", rel);
    return 0;
}

/* The student's TREE/REL: a regular file with one name, reached from TREE through real folders
 * only, opened without following a link and without waiting on a FIFO, and the helper files it
 * includes (helper_files.h), read into *T with the student's rights. */
static void read_student(const char *tree, const char *rel, const char *const *reserved,
                         taken_files *t)
{
    char shown[4096];
    snprintf(shown, sizeof shown, "%s/%s", tree, rel);
    if (rel[0] == '/' || strstr(rel, ".."))
        fail(3, "%s: the lab file's path must stay inside the tree", shown);
    int dir = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (dir < 0 || fstat(dir, &st) != 0)
        fail(3, "%s: cannot open the folder %s: %s", shown, tree, strerror(errno));
    if (geteuid() == 0)
        read_as(st.st_uid, st.st_gid);
    char part[4096];
    snprintf(part, sizeof part, "%s", rel);
    char *name = part;
    for (char *slash; (slash = strchr(name, '/')); name = slash + 1) {
        *slash = 0;
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
            fail(3, "%s: the folder '%s' on its way is %s; grading reads your file only through "
                    "real folders of your tree. Put the file itself there.", shown, name, kind_of(st.st_mode));
        const int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0)
            fail(3, "%s: cannot open the folder '%s': %s", shown, name, strerror(errno));
        close(dir);
        dir = next;
    }
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        fail(3, "%s: %s", shown, strerror(errno));
    if (S_ISLNK(st.st_mode)) {
        char target[1024];
        const ssize_t n = readlinkat(dir, name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        char safe[2048];
        text_visible(safe, sizeof safe, target, 0);
        fail(3, "%s is a symbolic link (to %s); grading reads only a regular file inside your "
                "tree, and never what a link points to. Replace the link with your own file.", shown, safe);
    }
    if (!S_ISREG(st.st_mode))
        fail(3, "%s is %s, not a regular file; grading reads only your own source file there.",
             shown, kind_of(st.st_mode));
    if (st.st_size > MAX_SOURCE_BYTES)
        fail(3, "%s is %lld bytes; a lab file is at most %d MiB.", shown, (long long)st.st_size,
             MAX_SOURCE_BYTES >> 20);
    const int in = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (in < 0 && (errno == EACCES || errno == EPERM))
        fail(3, "%s: your own rights do not let it be read; grading reads your files as you.", shown);
    struct stat again;
    if (in < 0 || fstat(in, &again) != 0 || !S_ISREG(again.st_mode))
        fail(3, "%s changed while it was read: grade it again", shown);
    if (again.st_nlink != 1)
        fail(3, "%s is a hard link (the file has %lu names); grading reads only a file of your own "
                "with one name. Copy its text into a file of your own there.", shown,
             (unsigned long)again.st_nlink);
    size_t got;
    char *text = text_read_fd(in, MAX_SOURCE_BYTES, &got);
    close(in);
    if (!text)
        fail(3, "%s could not be read whole (at most %d MiB)", shown, MAX_SOURCE_BYTES >> 20);
    take_helper(t, "", text, got);
    char shown_dir[4096], err[1024];
    const char *slash = strrchr(rel, '/');
    snprintf(shown_dir, sizeof shown_dir, "%s%s%.*s", tree, slash ? "/" : "",
             slash ? (int)(slash - rel) : 0, rel);
    const helper_calls calls = {take_helper, note_missing, t, name};
    const int rc = helper_files(dir, shown_dir, text, got, reserved, &calls, err, sizeof err);
    free(text);
    close(dir);
    read_as_grader();
    if (rc)
        fail(3, "%s", err);
}

/* What was read, into the work folder: the lab file at DEST, each helper beside it. */
static void write_student(const taken_files *t, const char *dest)
{
    char lab_dir[4096];
    snprintf(lab_dir, sizeof lab_dir, "%s/%s", work, dest);
    *strrchr(lab_dir, '/') = 0;
    for (int i = 0; i < t->n; i++) {
        char to[8192];
        if (i == 0)
            snprintf(to, sizeof to, "%s/%s", work, dest);
        else
            snprintf(to, sizeof to, "%s/%s", lab_dir, t->rel[i]);
        make_parents(to);
        const int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (out < 0)
            fail(2, "cannot write %s: %s", to, strerror(errno));
        const int ok = write(out, t->bytes[i], t->len[i]) == (ssize_t)t->len[i];
        close(out);
        if (!ok)
            fail(2, "cannot write %s", to);
    }
}

/* A path make may read as one word of a variable's value: letters, digits and . _ - / + only. */
static int make_safe(const char *path)
{
    for (const char *c = path; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-' || *c == '/' || *c == '+'))
            return 0;
    return path[0] != 0;
}

/* The build's record of what the compile read of the student's tree, for make (lab_rules.mk
 * includes it): VAR the files that were there (the lab file and every helper: nothing else of
 * the tree is in the sandbox, so this is every student file the compiler could read),
 * VAR_ABSENT the names inside the lab's folder the files included that were not there. Written
 * by this trusted program from its own walk, never from what the compile wrote; a path make
 * could read as anything but a file name makes VAR "student-rebuild" (built every time). */
static void write_deps(const char *file, const char *var, const char *tree, const char *rel,
                       const taken_files *t)
{
    char dir[4096];
    const char *slash = strrchr(rel, '/');
    snprintf(dir, sizeof dir, "%s%s%.*s", tree, slash ? "/" : "", slash ? (int)(slash - rel) : 0, rel);
    char tmp[8192];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", file, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        fail(2, "cannot write %s: %s", tmp, strerror(errno));
    int safe = make_safe(dir) && make_safe(rel);
    for (int i = 1; i < t->n; i++)
        safe = safe && make_safe(t->rel[i]);
    for (int i = 0; i < t->n_missing; i++)
        safe = safe && make_safe(t->missing[i]);
    fprintf(f, "# sandbox-run: the student's files the compile was given (written by it, not by the compile)\n");
    if (!safe) {
        fprintf(f, "%s := student-rebuild\n%s_ABSENT :=\n", var, var);
    } else {
        fprintf(f, "%s := %s/%s", var, tree, rel);
        for (int i = 1; i < t->n; i++)
            fprintf(f, " %s/%s", dir, t->rel[i]);
        fprintf(f, "\n%s_ABSENT :=", var);
        for (int i = 0; i < t->n_missing; i++)
            fprintf(f, " %s/%s", dir, t->missing[i]);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0 || rename(tmp, file) != 0) {
        unlink(tmp);
        fail(2, "cannot write %s", file);
    }
}

static void copy_trusted(const char *src, const char *dest)
{
    const int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        fail(2, "cannot read %s: %s", src, strerror(errno));
    char to[8192];
    snprintf(to, sizeof to, "%s/%s", work, dest);
    if (copy_fd(in, to, 1LL << 30) != 0)
        fail(2, "cannot copy %s", src);
    close(in);
}

/* Graded as root, the sandbox's own uid must read (and run) the grader's tools it is shown:
 * others get read, and run where the owner may run (a umask of 077, a wheel's 0744). */
static int let_others_read(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag, (void)ftw;
    if (S_ISLNK(st->st_mode))
        return 0;
    mode_t m = st->st_mode & 07777;
    const mode_t want = m | S_IROTH | ((S_ISDIR(st->st_mode) || (m & S_IXUSR)) ? S_IXOTH : 0);
    if (want != m)
        chmod(path, want);
    return 0;
}

/* Give the work folder to the sandbox's uid (the grader runs as root). */
static int chown_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    extern uid_t give_to;
    return lchown(path, give_to, give_to);
}
uid_t give_to;

static void on_signal(int sig)
{
    stop_sig = sig;
    if (child > 0) {
        kill(-child, SIGKILL);
        kill(child, SIGKILL);
    }
}

/* A path as the sandbox binds it: resolved (kept for the program's life), or as given when it
 * does not exist here. */
static const char *real_or_same(const char *path)
{
    char *real = realpath(path, NULL);
    return real ? real : path;
}

static int says_out_of_memory(const char *text)
{
    static const char *const words[] = {"out of memory", "memory exhausted", "bad_alloc",
                                        "Cannot allocate memory", "cannot allocate memory"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(text, words[i]))
            return 1;
    return 0;
}

/* What the command line asks for (the policy's own inputs go straight to sandbox_compile_inputs). */
typedef struct run_options {
    sandbox_compile_inputs given; /* the compile policy's inputs (work and scratch set later) */
    const char *student_tree;     /* --student TREE REL: the student's file, copied in */
    const char *student_rel;
    const char *student_as;       /* --student-as DEST: where in the work folder (default REL) */
    const char *deps_file;        /* --deps FILE VAR: the record of what was read, for make */
    const char *deps_var;
    const char *copies[64][2];    /* --copy SRC DEST: trusted files copied in */
    int n_copies;
    const char *gets[16][2];      /* --get NAME DEST: what is copied out after a success */
    int n_gets;
    const char *envs[32];         /* --env NAME=VALUE */
    int n_envs;
    double wall;                  /* --wall: seconds before the command is stopped */
    char **cmd;                   /* the command after -- */
} run_options;

/* Reads the command line into *o (and `work`); a wrong one ends the program with status 2. */
static void parse_options(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->given = (sandbox_compile_inputs){.what = "compile",
                                        .cpu_seconds = SANDBOX_COMPILE_CPU_SECONDS,
                                        .tasks = SANDBOX_COMPILE_TASKS,
                                        .mem_mib = SANDBOX_COMPILE_MEM_MIB,
                                        .file_mib = SANDBOX_COMPILE_FILE_MIB};
    o->wall = 600;
    sandbox_compile_inputs *given = &o->given;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-proc")) {
            given->no_proc = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char *v2 = i + 2 < argc ? argv[i + 2] : NULL;
        if (!v)
            fail(2, "sandbox-run: %s needs a value", a);
        if (!strcmp(a, "--work")) work = v, i++;
        else if (!strcmp(a, "--what")) given->what = v, i++;
        else if (!strcmp(a, "--student") && v2) o->student_tree = v, o->student_rel = v2, i += 2;
        else if (!strcmp(a, "--student-as")) o->student_as = v, i++;
        else if (!strcmp(a, "--deps") && v2) o->deps_file = v, o->deps_var = v2, i += 2;
        else if (!strcmp(a, "--copy") && v2 && o->n_copies < 64) o->copies[o->n_copies][0] = v, o->copies[o->n_copies++][1] = v2, i += 2;
        else if (!strcmp(a, "--get") && v2 && o->n_gets < 16) o->gets[o->n_gets][0] = v, o->gets[o->n_gets++][1] = v2, i += 2;
        else if (!strcmp(a, "--visible") && given->n_shown < 16)
            given->shown[given->n_shown++] = real_or_same(v), i++;
        else if (!strcmp(a, "--writable")) {
            if (given->n_writable < SANDBOX_MAX_PATHS)
                given->writable[given->n_writable++] = real_or_same(v);
            i++;
        }
        else if (!strcmp(a, "--hide")) {
            if (given->n_hidden == SANDBOX_MAX_RESOLVED)
                fail(2, "sandbox-run: at most %d --hide folders", SANDBOX_MAX_RESOLVED);
            given->hidden[given->n_hidden++] = v, i++;
        }
        else if (!strcmp(a, "--env") && o->n_envs < 30) o->envs[o->n_envs++] = v, i++;
        else if (!strcmp(a, "--wall")) o->wall = atof(v), i++;
        else if (!strcmp(a, "--cpu")) given->cpu_seconds = atol(v), i++;
        else if (!strcmp(a, "--mem")) given->mem_mib = atoll(v), i++;
        else if (!strcmp(a, "--file-mib")) given->file_mib = atoll(v), i++;
        else if (!strcmp(a, "--tasks")) given->tasks = atol(v), i++;
        else fail(2, "sandbox-run: unknown option %s", a);
    }
    if (!work || i + 1 >= argc)
        fail(2, "usage: sandbox-run --work DIR [options] -- COMMAND ARGS...");
    o->cmd = argv + i + 1;
}

/* A fresh work folder (removed at exit), its scratch folder and the inputs copied in; the
 * compile policy made from them into *p; run as root, the folder given to the sandbox's uid
 * and what it is shown made readable to it. */
static void prepare_work(run_options *o, sandbox_policy *p)
{
    static char scratch[8192];
    struct stat st;
    if (lstat(work, &st) == 0 && remove_tree(work) != 0)
        fail(2, "cannot empty %s: %s", work, strerror(errno));
    make_parents(work);
    if (mkdir(work, 0755) != 0)
        fail(2, "cannot make %s: %s", work, strerror(errno));
    char *abs_work = realpath(work, NULL);
    if (!abs_work)
        fail(2, "cannot find %s", work);
    work = abs_work;
    atexit(remove_work);
    snprintf(scratch, sizeof scratch, "%s/.tmp", work);
    if (mkdir(scratch, 0700) != 0)
        fail(2, "cannot make %s", scratch);
    if (o->student_tree) {
        /* The student's files go into a folder of their own (DEST's), never the top of the work
         * folder, where the command runs: nvcc's implicit -include "cuda_runtime.h" looks in the
         * working folder first, and include/ (the workbook's headers, -Iinclude) and the build
         * scripts are there. Their folder may share no name with a trusted file's.
         * The names a helper may not take: the lab file's own, and the workbook's headers (a
         * quoted include finds the file's own folder first). */
        const char *dest = o->student_as ? o->student_as : o->student_rel;
        const char *dslash = strchr(dest, '/');
        if (!dslash || dest[0] == '/' || strstr(dest, ".."))
            fail(2, "sandbox-run: the student's file needs a folder of its own in the work folder "
                    "(--student-as DIR/NAME), not %s", dest);
        for (int c = 0; c < o->n_copies; c++) {
            const char *cd = o->copies[c][1];
            const size_t top = strcspn(cd, "/");
            if (top == (size_t)(dslash - dest) && !strncmp(cd, dest, top))
                fail(2, "sandbox-run: the student's folder %.*s is also a trusted file's", (int)top, dest);
        }
        const char *reserved[64 + 2];
        int n = 0;
        const char *base = strrchr(o->student_rel, '/');
        reserved[n++] = base ? base + 1 : o->student_rel;
        for (int c = 0; c < o->n_copies; c++) {
            const char *cd = o->copies[c][1];
            if (!strncmp(cd, "include/", 8))
                reserved[n++] = cd + 8;
        }
        reserved[n] = NULL;
        static taken_files taken;
        read_student(o->student_tree, o->student_rel, reserved, &taken);
        write_student(&taken, dest);
        if (o->deps_file)
            write_deps(o->deps_file, o->deps_var, o->student_tree, o->student_rel, &taken);
    }
    for (int c = 0; c < o->n_copies; c++)
        copy_trusted(o->copies[c][0], o->copies[c][1]);
    o->given.work = work;
    o->given.scratch = scratch;
    sandbox_compile_policy(p, &o->given);
    if (getuid() == 0) {
        for (int v = 0; v < o->given.n_shown; v++)
            nftw(o->given.shown[v], let_others_read, 16, FTW_PHYS);
        p->uid = give_to = sandbox_uid();
        if (nftw(work, chown_one, 16, FTW_PHYS) != 0)
            fail(2, "cannot give %s to the sandbox's user: %s", work, strerror(errno));
    }
}

/* Starts the command in the sandbox of `p` (the global `child`), its stdin /dev/null, its
 * stdout and stderr to `out_fd`, with a minimal environment: PATH (the toolkit's bin first),
 * HOME and TMPDIR in its private /tmp, LC_ALL=C, CUDA_HOME, and what --env gave. */
static void start_command(const sandbox_policy *p, const run_options *o, int out_fd)
{
    fflush(NULL);
    child = fork();
    if (child < 0)
        fail(2, "cannot start the compile: %s", strerror(errno));
    if (child != 0)
        return;
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    closefrom(3);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL), signal(SIGPIPE, SIG_DFL);
    sandbox_enter(p);
    static char env_store[8][4200];
    char *envp[48];
    int ne = 0;
    const char *cuda = getenv("CUDA_HOME");
    snprintf(env_store[0], sizeof env_store[0], "PATH=%s%s/usr/local/bin:/usr/bin:/bin",
             cuda ? cuda : "", cuda ? "/bin:" : "");
    snprintf(env_store[1], sizeof env_store[1], "HOME=%s", sandbox_tmp(p));
    snprintf(env_store[2], sizeof env_store[2], "TMPDIR=%s", sandbox_tmp(p));
    envp[ne++] = env_store[0], envp[ne++] = env_store[1], envp[ne++] = env_store[2];
    envp[ne++] = (char *)"LC_ALL=C";
    if (cuda) {
        snprintf(env_store[3], sizeof env_store[3], "CUDA_HOME=%s", cuda);
        envp[ne++] = env_store[3];
    }
    for (int e = 0; e < o->n_envs; e++)
        envp[ne++] = (char *)o->envs[e];
    envp[ne] = NULL;
    execvpe(o->cmd[0], o->cmd, envp);
    fprintf(stderr, "error: cannot run %s: %s\n", o->cmd[0], strerror(errno));
    _exit(127);
}

/* Relays the command's output from `fd` into seen[] (OUTPUT_CAP bytes kept, the rest counted
 * in *dropped) until it closes, a stop signal comes, or `wall` seconds have passed (then the
 * command is killed and 1 is returned). */
static int relay_output(int fd, double wall, char *seen, size_t *kept, long long *dropped)
{
    const double start = (double)time(NULL);
    *kept = 0;
    *dropped = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        const double left = wall - ((double)time(NULL) - start);
        if (left <= 0) {
            kill(-child, SIGKILL);
            kill(child, SIGKILL);
            return 1;
        }
        const int r = poll(&pf, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) {
            if (stop_sig)
                return 0;
            continue;
        }
        if (r <= 0)
            continue;
        char buf[4096];
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        const size_t take = *kept + (size_t)n > OUTPUT_CAP ? OUTPUT_CAP - *kept : (size_t)n;
        memcpy(seen + *kept, buf, take);
        *kept += take;
        *dropped += n - (ssize_t)take;
    }
}

/* How the command ended, said as the limit or fault that ended it: returns only when it
 * exited 0; otherwise ends the program (1: the student's file, 2: the machine's). `seen` is
 * its output (an out-of-memory compiler says so there). */
static void judge_end(const sandbox_policy *p, const run_options *o, sandbox_kind kind,
                      int status, int timed_out, const char *seen)
{
    const char *what = p->what;
    if (timed_out)
        fail(1, "the %s ran longer than %.0f s and was stopped (an #include of a device or a pipe that "
                "never ends, such as /dev/tty, or code that takes the compiler that long?)", what, o->wall);
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGXCPU)
            fail(1, "the %s used more than %ld s of CPU time and was stopped (templates or constant "
                    "expressions that never finish?)", what, p->cpu_seconds);
        if (sig == SIGXFSZ)
            fail(1, "the %s wrote a file larger than %lld MiB and was stopped (a huge table or "
                    "an #include/.incbin of something that large?)", what, o->given.file_mib);
        if (sig == SIGKILL)
            fail(1, "the %s was killed (the machine ran out of memory?)", what);
        fail(1, "the %s crashed (%s)", what, strsignal(sig));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 121)
        fail(2, "the %s could not be isolated here (%s): this is the grader's or the machine's "
                "problem, not your code's; run make doctor", what, sandbox_kind_name(kind));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (says_out_of_memory(seen))
            fail(1, "the %s ran out of its %lld MiB of memory (an #include of a device file such "
                    "as /dev/zero, or a table too large to compile?)", what, o->given.mem_mib);
        exit(1);
    }
}

/* Copies each --get file out of the work folder: a regular file only (no link followed), at
 * most the policy's file size, written beside its destination and renamed into place. */
static void get_results(const run_options *o, const char *what)
{
    for (int g = 0; g < o->n_gets; g++) {
        char from[8192], tmp[8192];
        struct stat st;
        snprintf(from, sizeof from, "%s/%s", work, o->gets[g][0]);
        const int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode))
            fail(1, "the %s made no regular file %s", what, o->gets[g][0]);
        snprintf(tmp, sizeof tmp, "%s.tmp%d", o->gets[g][1], (int)getpid());
        if (copy_fd(in, tmp, o->given.file_mib << 20) != 0 || rename(tmp, o->gets[g][1]) != 0) {
            unlink(tmp);
            fail(1, "%s is larger than %lld MiB", o->gets[g][0], o->given.file_mib);
        }
        close(in);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--probe")) {
        printf("%s\n", sandbox_kind_name(sandbox_available()));
        return 0;
    }
    static run_options o;
    parse_options(argc, argv, &o);
    sandbox_policy p;
    prepare_work(&o, &p);

    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        fail(2, "cannot make a pipe");
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    const sandbox_kind kind = sandbox_available();
    start_command(&p, &o, out[1]);
    close(out[1]);
    /* Relay the output, made safe and capped, and watch the clock. */
    static char seen[OUTPUT_CAP + 1];
    size_t kept;
    long long dropped;
    const int timed_out = relay_output(out[0], o.wall, seen, &kept, &dropped);
    seen[kept] = 0;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (stop_sig) {
        kill(-child, SIGKILL);
        signal(stop_sig, SIG_DFL);
        raise(stop_sig);
        _exit(128 + stop_sig);
    }
    text_put_n(stderr, seen, kept, TEXT_KEEP_NEWLINES); /* the compiler quotes the student */
    if (dropped)
        fprintf(stderr, "\n[%lld more bytes of the compiler's output were not kept]\n", dropped);
    judge_end(&p, &o, kind, status, timed_out, seen);
    get_results(&o, p.what);
    return 0;
}
