/* grade_one.c - one student, in two processes of its own (grader/batch/batch.h, schedule.h):
 * the preparer (the submission's lab files written into OUT/work/<id>/tree, and make's
 * batch-prepare for it on the CPUs: its objects compiled and vetted in the compile sandbox; no
 * student code runs), then the keeper (make grade's build of that tree, then the grade-driver
 * itself, on one GPU, in a process group of its own; its report kept, capped; the logs it names copied beside it; the
 * exports and the record written). Trusted: make and the driver are started directly, with
 * generated paths only (never a student's name), and what they printed is data, shown visible.
 * Each runs under stop_fork(SIGTERM): when the batch stops or dies, it ends what it started
 * (grader/wire/stop.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/text.h"
#include "../lab.h"
#include "../plan/lab_select.h"
#include "../wire/child.h"
#include "../wire/stop.h"
#include "batch.h"

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

/* The host-link lock's file: one in the batch's output folder, which no student's code sees. */
static void host_link_lock_path(const batch_state *b, char *path, size_t len)
{
    snprintf(path, len, "%s/.host-link.lock", b->out);
}

/* Wait for the preparer's make (child pid, a stop_fork group). On a GPU batch, while a grade
 * holds the host-link lock (a lab whose timed copies cross the host link: lab 05), the build
 * and every compiler under it are paused (SIGSTOP, whatever their process group or sandbox)
 * and resumed when it is let go: a build's memory traffic beside those copies made the
 * reference look slowed by an honest student's process. The lock is only tested, never held. */
static void prepare_wait(const batch_settings *o, const batch_state *b, pid_t pid, int *status)
{
    char path[PATH_MAX + 32];
    host_link_lock_path(b, path, sizeof path);
    const int fd = o->emu ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    int stopped = 0;
    for (;;) {
        const pid_t r = waitpid(pid, status, fd >= 0 ? WNOHANG : 0);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        if (r == 0) {
            const int busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
            if (!busy)
                flock(fd, LOCK_UN);
            if (busy != stopped)
                proc_tree_signal(pid, busy ? SIGSTOP : SIGCONT);
            stopped = busy;
            const struct timespec nap = {0, 20 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
    }
    if (stopped)
        proc_tree_signal(pid, SIGCONT);
    if (fd >= 0)
        close(fd);
}

/* The preparer (schedule.h's PREPARE, on the CPUs beside another student's grading): the
 * student's tree, and make's batch-prepare for it (each selected lab's runner): its objects
 * compiled and vetted in the compile sandbox, as make grade's build would, which then finds
 * them built; on a GPU, the CPU emulator's copy too, which the WHERE line needs. No student
 * code runs here. Its make runs at a lower priority than the grading beside it, which times
 * with a host clock. What it printed is in OUT/work/<id>/prepare.log; a build that failed is
 * graded as such by the keeper (whose make grade builds again and says why). Never returns. */
void preparer(const batch_settings *o, const batch_state *b, const student *s)
{
    stop_on_signals(800, NULL);
    char work[PATH_MAX], tree[PATH_MAX + 8], log[PATH_MAX + 16];
    snprintf(work, sizeof work, "%s/work/%s", b->out, s->id);
    snprintf(tree, sizeof tree, "%s/tree", work);
    write_tree(s, work, tree);
    snprintf(log, sizeof log, "%s/prepare.log", work);
    char a_student[PATH_MAX + 16], a_lab[1100], a_build[PATH_MAX], a_jobs[32];
    snprintf(a_student, sizeof a_student, "STUDENT=%s", tree);
    snprintf(a_lab, sizeof a_lab, "BATCH_LABS=%s", b->labs_arg);
    for (char *p = a_lab; *p; p++)
        if (*p == ',')
            *p = ' ';
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(a_jobs, sizeof a_jobs, "-j%ld", cpus > 1 ? cpus : 1);
    const int passes = o->emu ? 1 : 2; /* on a GPU: its objects, then the emulator's for WHERE */
    for (int pass = 0; pass < passes; pass++) {
        /* the compile may not read the other students' submissions, trees or reports either
         * (as make grade is told: keeper_start) */
        char a_hide[2 * PATH_MAX + 16];
        snprintf(a_hide, sizeof a_hide, "GRADER_HIDE=%s %s", b->out, o->submissions);
        char *argv[12] = {getenv("MAKE") ? getenv("MAKE") : "make", "-s", "--no-print-directory",
                          a_jobs, "-k", "batch-prepare", a_student, a_lab, a_hide};
        int argc = 9;
        if (o->emu || pass == 1)
            argv[argc++] = "EMU=1";
        if (o->build) {
            snprintf(a_build, sizeof a_build, "BUILD=%s", o->build);
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
            /* On GPUs the builds run beside other students' timing: they take the CPUs only
             * when grading leaves them idle (SCHED_IDLE, which make, nvcc and the compilers
             * inherit), so a grade's own threads never wait for a core behind a compiler.
             * Under the emulator the grades themselves fill the CPUs, and the builds take
             * nice 10 (as BATCH_PREPARE_PRIORITY=nice asks on GPUs too, for comparison), so
             * that preparing goes on beside them. A lower priority only: nothing depends on it. */
            const char *prio = getenv("BATCH_PREPARE_PRIORITY");
            struct sched_param idle = {0};
            if (o->emu || (prio && !strcmp(prio, "nice")) ||
                sched_setscheduler(0, SCHED_IDLE, &idle) != 0)
                if (nice(10) == -1 && errno) {
                }
            execvp(argv[0], argv);
            _exit(127);
        }
        int status;
        prepare_wait(o, b, pid, &status);
        stop_forget(pid);
    }
    _exit(0);
}

#define LOG_CAP (1 << 20) /* bytes of one check's or build's log kept beside the report */

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

/* The keeper's child's environment (make's, then the driver's): none of a make around the
 * batch, the GPU `gpu` (NULL: none, the emulator), the host link's lock and the reference's
 * cache on a GPU, isolation required unless the batch allows it. */
static void keeper_environment(const batch_settings *o, const batch_state *b, const char *gpu)
{
    /* A make around us must not pass its variables (SUBMISSIONS, its jobserver) down. */
    unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
    unsetenv("GNUMAKEFLAGS");
    unsetenv("MAKEOVERRIDES");
    if (gpu)
        setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
    /* a lab timed across the host link: one GPU at a time, and no build beside it (the
     * preparers pause while the lock is held: prepare_wait) */
    char link_lock[PATH_MAX + 32];
    host_link_lock_path(b, link_lock, sizeof link_lock);
    if (gpu)
        setenv("GRADE_HOST_LINK_LOCK", link_lock, 1);
    else
        unsetenv("GRADE_HOST_LINK_LOCK");
    /* the reference alone, kept per GPU for the batch's next students, in a folder of the
     * batch's output, which no student's code sees (grader/harness/alone_cache.h) */
    char alone_dir[PATH_MAX + 32];
    snprintf(alone_dir, sizeof alone_dir, "%s/.alone", b->out);
    if (gpu)
        setenv("GRADER_ALONE_CACHE", alone_dir, 1);
    else
        unsetenv("GRADER_ALONE_CACHE");
    /* a grade that is not tamper-proof is refused unless asked for */
    setenv("GRADER_REQUIRE_ISOLATION", o->allow_unisolated ? "0" : "1", 1);
}

/* The driver's command line as make grade writes it (GRADE_ARGV: grader/make/grade.mk), read
 * from `path` (removed then): NUL-ended arguments, the driver first. NULL if there is none. */
static char **driver_argv(const char *path)
{
    size_t n = 0;
    char *text = read_whole(path, &n);
    unlink(path);
    if (!text || !n || text[n - 1])
        return NULL;
    size_t args = 0;
    for (size_t i = 0; i < n; i++)
        args += !text[i];
    char **argv = calloc(args + 1, sizeof *argv);
    for (size_t i = 0, k = 0; argv && i < n; i += strlen(text + i) + 1)
        argv[k++] = text + i;
    return argv;
}

/* In the keeper's child, in its process group: make grade's build with `make_argv`, which
 * writes the driver's command line into `argv_file` instead of running it, then the driver
 * itself in this process (exec: a stop of the group reaches it as it reached it under make,
 * and its exit status is the grader's own). Never returns. */
static void build_then_drive(char **make_argv, const char *argv_file)
{
    const pid_t self = getpid();
    const pid_t m = fork();
    if (m == 0) { /* make, in this group; should this process end first, make is stopped too */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != self)
            _exit(2);
        execvp(make_argv[0], make_argv);
        fprintf(stderr, "cannot run %s: %s\n", make_argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (m > 0 && waitpid(m, &status, 0) < 0 && errno == EINTR) {
    }
    /* The build failed (the grader's own programs: a lab's failure is graded), or no line:
     * the grader did not run: status 2 */
    char **argv = m > 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? driver_argv(argv_file) : NULL;
    if (!argv)
        _exit(2);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(2);
}

/* make grade's build on `tree`, its report folder `gdir`, then the driver (build_then_drive),
 * started in a process group of its own with its stdout and stderr into the pipe `fds` (the
 * read end stays here). Returns its pid. */
static pid_t keeper_start(const batch_settings *o, const batch_state *b, const char *tree,
                          const char *gdir, const char *gpu, int fds[2])
{
    char a_student[PATH_MAX + 16], a_grade[PATH_MAX + 16], a_seed[64], a_lab[1100], a_build[PATH_MAX];
    char a_argv[PATH_MAX + 32], argv_file[PATH_MAX + 16];
    snprintf(a_student, sizeof a_student, "STUDENT=%s", tree);
    snprintf(a_grade, sizeof a_grade, "GRADE_DIR=%s", gdir);
    snprintf(a_seed, sizeof a_seed, "SEED=%s", b->seed);
    snprintf(a_lab, sizeof a_lab, "LAB=%s", b->labs_arg);
    snprintf(argv_file, sizeof argv_file, "%s.argv", gdir);
    snprintf(a_argv, sizeof a_argv, "GRADE_ARGV=%s", argv_file);
    /* the student's code may not read the other students' submissions, trees or reports */
    char a_hide[2 * PATH_MAX + 16];
    snprintf(a_hide, sizeof a_hide, "GRADER_HIDE=%s %s", b->out, o->submissions);
    /* the report names files as the student's submission has them, never this batch's folders */
    char *argv[14] = {getenv("MAKE") ? getenv("MAKE") : "make", "--no-print-directory", "grade",
                      a_student, a_grade, a_seed, a_lab, a_hide, "GRADE_PATHS=submission", a_argv};
    int argc = 10;
    if (o->emu)
        argv[argc++] = "EMU=1";
    if (o->build) {
        snprintf(a_build, sizeof a_build, "BUILD=%s", o->build);
        argv[argc++] = a_build;
    }
    argv[argc] = NULL;
    unlink(argv_file);
    stop_temp(argv_file); /* a stop between make and the driver leaves no command line behind */

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
        keeper_environment(o, b, gpu);
        build_then_drive(argv, argv_file);
    }
    close(fds[1]);
    return g;
}

/* The report: what the student would have seen, capped (REPORT_CAP bytes into `report`, the
 * rest counted in *dropped). Read until the keeper's child (`g`: make, then the driver) has
 * exited and the pipe `fd` is quiet; anything of its group still holding the pipe is then
 * killed. Returns its exit status (the driver's: the grader's own; 2 if it did not exit). */
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
        /* Something the grade left behind that keeps writing: stop listening 5 s after it ended. */
        if (exited && clock_gettime(CLOCK_MONOTONIC, &now) == 0 && now.tv_sec - exit_time.tv_sec > 5)
            break;
    }
    if (!exited)
        waitpid(g, &status, 0);
    kill(-g, SIGKILL);
    stop_forget(g);
    stop_sweep(1000); /* what outlived its parent below the driver was adopted here: it ends */
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* <sdir>/report.txt: the work not submitted, named before the checks it explains, then the
 * report (report[0..kept), NUL-terminated here) and how much of it was cut. */
static void keeper_write_report(const batch_state *b, const student *s, const char *sdir, char *report, size_t kept,
                                size_t dropped)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/report.txt", sdir);
    atomic_file a;
    FILE *f = atomic_open(&a, path);
    /* The grader shows student text visible already; whatever else reached the pipe (a tool's
     * colours, a stray control) is shown visible here, so the file reads as the grader wrote. */
    report[kept] = 0;
    {   /* work not submitted, named before the checks it explains */
        grade_row named;
        init_row(b, &named, s);
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
static void keeper_remove_objects(const batch_settings *o, const jv *results)
{
    char path[PATH_MAX * 2];
    const char *built = o->build ? o->build : "build";
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

/* The keeper (schedule.h's GRADE, alone on its GPU): make grade's build, then the driver, on the tree the preparer
 * wrote (written here if it is not there), in its own process group with generated paths
 * only, keep its report (capped), and write the exports and the record. Never returns. It
 * is started with stop_fork(SIGTERM): when the batch stops or dies, it stops its child's
 * group (make, whose children are in it too, or the driver, which ends its own) and
 * removes its temporary files (grader/wire/stop.h). */
void keeper(const batch_settings *o, const batch_state *b, const student *s, const char *gpu)
{
    stop_on_signals(800, NULL);

    char work[PATH_MAX], tree[PATH_MAX + 8], gdir[PATH_MAX + 8], sdir[PATH_MAX], path[PATH_MAX * 2];
    snprintf(work, sizeof work, "%s/work/%s", b->out, s->id);
    snprintf(tree, sizeof tree, "%s/tree", work);
    snprintf(gdir, sizeof gdir, "%s/grade", work);
    student_dir(b, s, sdir, sizeof sdir);
    struct stat st;
    if (stat(tree, &st) || !S_ISDIR(st.st_mode))
        write_tree(s, work, tree);
    rm_tree(gdir);
    mkdirs(gdir);
    mkdirs(sdir);

    int fds[2];
    const pid_t g = keeper_start(o, b, tree, gdir, gpu, fds);
    char *report = malloc(REPORT_CAP + 1);
    size_t kept, dropped;
    const int grade_status = keeper_read(g, fds[0], report, &kept, &dropped);
    snprintf(path, sizeof path, "%s.argv", gdir); /* read and removed by the child, or not written */
    unlink(path);
    stop_temp_done(path);
    keeper_write_report(b, s, sdir, report, kept, dropped);
    free(report);

    grade_row row;
    init_row(b, &row, s);
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
    write_record(b, s, &row);
    keeper_remove_objects(o, results);
    jv_free(results);
    _exit(0);
}
