/* stop.c - TRUSTED: stopping a grading run stops everything it started (contract: stop.h).
 *
 * The signal handler does the whole stop itself, with async-signal-safe calls only (kill,
 * waitpid, nanosleep, open, read, unlink, write): whatever the program was doing when the
 * signal came (waiting for a build, a lock, a harness, a keeper), the run ends within the
 * grace and the sweep, and nothing depends on the main code noticing a flag. */
#include "stop.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 160 /* children running at once: a batch's keepers (at most 64), a build */
#define MAX_TEMPS 8    /* temporary files open at once (the gradebook's three) */
#define SWEEP_MS 1000  /* the longest the SIGKILL sweep takes before giving up */

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_SIGNALS (int)(sizeof stop_signals / sizeof stop_signals[0])

static volatile pid_t groups[MAX_GROUPS];       /* registered process groups; 0: free slot */
static char temps[MAX_TEMPS][PATH_MAX + 64];    /* registered temporary files ... */
static volatile sig_atomic_t temp_used[MAX_TEMPS]; /* ... valid where this is 1, a folder
                                                   (removed with all it holds) where 2 */
static struct sigaction before[N_SIGNALS];      /* the dispositions stop_on_signals replaced */
static int installed;                           /* 1 once stop_on_signals ran in this process */
static int grace;                               /* ms between SIGTERM and SIGKILL */
static const char *say;                         /* the line printed after a stop, or NULL */
static volatile sig_atomic_t stopping;          /* the signal being handled, 0 before */

/* ------------------------------------------------------------------------------------------ */
/* Async-signal-safe helpers                                                                   */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void nap_ms(int ms)
{
    const struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void put(const char *s)
{
    ssize_t ignored = write(2, s, strlen(s));
    (void)ignored;
}

/* The parent of process `pid` from /proc/PID/stat, or 0. */
static pid_t parent_of(const char *pid)
{
    char path[64] = "/proc/", buf[512];
    size_t n = strlen(path);
    for (const char *p = pid; *p && n < sizeof path - 8; p++)
        path[n++] = *p;
    memcpy(path + n, "/stat", 6);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = 0;
    /* "pid (comm) state ppid ...": comm may hold anything, so look after its last ')' */
    char *p = strrchr(buf, ')');
    if (!p || strlen(p) < 5)
        return 0;
    p += 4;
    pid_t ppid = 0;
    while (*p >= '0' && *p <= '9')
        ppid = ppid * 10 + (*p++ - '0');
    return ppid;
}

/* Send `sig` to every child of this process (those it started and those it adopted); 1 if one
 * was found. */
static int signal_children(int sig)
{
    int found = 0;
    const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return 0;
    const pid_t me = getpid();
    char buf[8192];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            /* struct linux_dirent64: inode, offset, record length, type, name */
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            off += reclen;
            if (*name < '1' || *name > '9')
                continue;
            pid_t pid = 0;
            for (const char *p = name; *p >= '0' && *p <= '9'; p++)
                pid = pid * 10 + (*p - '0');
            if (parent_of(name) == me) {
                found = 1;
                if (sig)
                    kill(pid, sig);
            }
        }
    }
    close(dir);
    return found;
}

/* Reap every child that has ended; 1 when this process has no child left at all. */
static int reap(void)
{
    for (;;) {
        const pid_t r = waitpid(-1, NULL, WNOHANG);
        if (r > 0)
            continue;
        return r < 0 && errno == ECHILD;
    }
}

static void signal_groups(int sig)
{
    for (int i = 0; i < MAX_GROUPS; i++)
        if (groups[i] > 0)
            kill(-groups[i], sig);
}

static int groups_empty(void)
{
    for (int i = 0; i < MAX_GROUPS; i++)
        if (groups[i] > 0 && !(kill(-groups[i], 0) != 0 && errno == ESRCH))
            return 0;
    return 1;
}

/* Every child (and its group) killed and reaped, for at most timeout_ms. */
static void sweep(int timeout_ms)
{
    const double end = now_ms() + timeout_ms;
    do {
        signal_groups(SIGKILL);
        signal_children(SIGKILL); /* their children come to this subreaper next round */
        if (reap())
            return;
        nap_ms(5);
    } while (now_ms() < end);
}

/* Remove entry `name` of folder fd `dir` (a folder with all it holds, `depth` levels down at
 * most); 1 if it is gone. Links are removed, never followed. */
static int remove_entry_at(int dir, const char *name, unsigned char type, int depth);

/* Remove what folder fd `dir` holds, with async-signal-safe calls only (getdents64 into a
 * buffer on the stack, no opendir: its malloc may be what the signal interrupted). Read
 * again from the start until a pass removes nothing: entries removed while a folder is read
 * may move the others. */
static void remove_inside(int dir, int depth)
{
    char buf[4096];
    for (int pass = 0; pass < 64; pass++) {
        int removed = 0;
        long n;
        lseek(dir, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: inode, offset, record length, type, name */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const unsigned char type = (unsigned char)buf[off + 18];
                const char *name = buf + off + 19;
                off += reclen;
                if (strcmp(name, ".") && strcmp(name, ".."))
                    removed += remove_entry_at(dir, name, type, depth);
            }
        }
        if (!removed)
            return;
    }
}

static int remove_entry_at(int dir, const char *name, unsigned char type, int depth)
{
    if (type != DT_DIR && unlinkat(dir, name, 0) == 0)
        return 1;
    if (type != DT_DIR && type != DT_UNKNOWN)
        return 0;
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int sub = depth > 0 ? openat(dir, name, flags) : -1;
    if (sub < 0 && depth > 0 && errno == EACCES && fchmodat(dir, name, 0700, 0) == 0)
        sub = openat(dir, name, flags); /* a folder its owner closed to itself */
    if (sub >= 0) {
        remove_inside(sub, depth - 1);
        close(sub);
    }
    return unlinkat(dir, name, AT_REMOVEDIR) == 0;
}

void stop_remove_tree(const char *path)
{
    const int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir >= 0) {
        remove_inside(dir, 32);
        close(dir);
    }
    rmdir(path);
}

static const char *signal_words(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT (Ctrl-C)";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP (hang-up)";
    default: return "a signal";
    }
}

static void on_stop_signal(int sig)
{
    if (stopping) /* the same stop again (the terminal's and make's): it is under way */
        return;
    stopping = sig;
    signal_groups(SIGTERM);
    signal_groups(SIGCONT);
    const double end = now_ms() + grace;
    while (!groups_empty() && now_ms() < end) {
        reap(); /* a group's leader, or a member adopted here, ends as a zombie until reaped */
        nap_ms(5);
    }
    sweep(SWEEP_MS);
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i] == 2)
            stop_remove_tree(temps[i]);
        else if (temp_used[i])
            unlink(temps[i]);
    if (say) {
        put("\nStopped by ");
        put(signal_words(sig));
        put(": ");
        put(say);
        put("\n");
    }
    /* End by the signal itself, so that make and shells above see how this ended. */
    signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* ------------------------------------------------------------------------------------------ */
/* The interface                                                                               */

static void block_stop_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < N_SIGNALS; i++)
        sigaddset(&s, stop_signals[i]);
    sigprocmask(SIG_BLOCK, &s, old);
}

void stop_on_signals(int grace_ms, const char *message)
{
    grace = grace_ms;
    say = message;
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_SIGNALS; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]); /* one handler at a time */
    for (int i = 0; i < N_SIGNALS; i++) {
        sigaction(stop_signals[i], NULL, &before[i]);
        if (before[i].sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
    installed = 1;
}

pid_t stop_fork(int deathsig)
{
    sigset_t old;
    block_stop_signals(&old);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        if (installed)
            for (int i = 0; i < N_SIGNALS; i++)
                sigaction(stop_signals[i], &before[i], NULL);
        installed = 0;
        for (int i = 0; i < MAX_GROUPS; i++)
            groups[i] = 0;
        for (int i = 0; i < MAX_TEMPS; i++)
            temp_used[i] = 0;
        if (deathsig) {
            prctl(PR_SET_PDEATHSIG, deathsig);
            if (getppid() != parent) /* it died before the line above: no signal will come */
                _exit(128 + deathsig);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    if (pid > 0) {
        setpgid(pid, pid); /* also here, so that the group exists before it can be killed */
        for (int i = 0; i < MAX_GROUPS; i++)
            if (groups[i] == 0) {
                groups[i] = pid;
                break;
            }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

void stop_forget(pid_t pid)
{
    for (int i = 0; i < MAX_GROUPS; i++)
        if (groups[i] == pid)
            groups[i] = 0;
}

void stop_temp(const char *path)
{
    sigset_t old;
    block_stop_signals(&old);
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_used[i]) {
            snprintf(temps[i], sizeof temps[i], "%s", path);
            temp_used[i] = 1;
            break;
        }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

void stop_temp_dir(const char *path)
{
    stop_temp(path);
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i] == 1 && !strcmp(temps[i], path))
            temp_used[i] = 2;
}

void stop_temp_done(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i] && !strcmp(temps[i], path))
            temp_used[i] = 0;
}

void stop_sweep(int timeout_ms)
{
    sweep(timeout_ms);
}

