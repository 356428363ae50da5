/* child.c - TRUSTED: one child process under a time limit (see child.h). */
#include "child.h"
#include "stop.h"
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

int run_child(char *const argv[], const char *log_path, double timeout_s, child_outcome *o)
{
    memset(o, 0, sizeof *o);
    const double start = wall_seconds();
    fflush(stdout);
    fflush(stderr);
    /* Its own group, so that a timeout or a stop kills everything it started; and it dies
     * with this process (a build's flock with it: the lock cannot outlive the run). */
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0) {
        o->status = 127;
        return -1;
    }
    if (pid == 0) {
        const int in = open("/dev/null", O_RDONLY);
        const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in >= 0)
            dup2(in, 0);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execv(argv[0], argv);
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    for (;;) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            stop_forget(pid);
            o->status = 127;
            return -1;
        }
        if (wall_seconds() - start > timeout_s) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            o->timed_out = 1;
            break;
        }
        const struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL); /* anything it left running in its group */
    stop_forget(pid);
    o->seconds = wall_seconds() - start;
    if (!o->timed_out) {
        if (WIFEXITED(status)) {
            o->exited = 1;
            o->status = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            o->signal = WTERMSIG(status);
        }
    }
    return (o->exited && o->status == 127) ? -1 : 0;
}

/* A TMPDIR for a process this one starts, PREFIX-XXXXXX in this run's TMPDIR, into dir: its
 * workers' scratch folders (made where namespaces are refused) lie in it, and this process
 * removes it once that process has ended, however it ended (one killed, by a timeout or a stop,
 * cannot remove them itself; a stop removes it too). Searchable by all: graded as root, a
 * worker runs as another uid. "" if it could not be made: the process uses the run's TMPDIR
 * then, and its workers still remove theirs. */
void scratch_make(char *dir, size_t len, const char *prefix)
{
    const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, len, "%s/%s-XXXXXX", base, prefix);
    if (!mkdtemp(dir) || chmod(dir, 0711) != 0)
        dir[0] = 0;
    else
        stop_temp_dir(dir);
}

/* Every process that could write in dir (scratch_make's) has ended: dir removed, and "". */
void scratch_remove(char *dir)
{
    if (!dir[0])
        return;
    stop_remove_tree(dir);
    stop_temp_done(dir);
    dir[0] = 0;
}

int child_wait_or_kill(pid_t pid, double start, double left, int *status)
{
    int done = 0;
    for (;;) {
        const pid_t r = waitpid(pid, status, WNOHANG);
        if (r < 0 && errno == ECHILD) { /* reaped by a sweep (a harness restart): gone */
            stop_forget(pid);
            return -1;
        }
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
        waitpid(pid, status, 0);
    }
    stop_forget(pid);
    return done;
}

int proc_tree_signal(pid_t root, int sig)
{
    if (root <= 0)
        return 0;
    /* every process's parent, once: a descendant is a process whose parent is in the set */
    enum { MAX_PROCS = 65536 };
    static pid_t pid_of[MAX_PROCS], parent_of[MAX_PROCS];
    int n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return kill(root, sig) == 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_PROCS) {
        char *end;
        const long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        const ssize_t got = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (got <= 0)
            continue;
        buf[got] = 0;
        const char *rp = strrchr(buf, ')'); /* "PID (COMM) STATE PPID ...": COMM may hold ')' */
        char state;
        long ppid;
        if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
            continue;
        pid_of[n] = (pid_t)pid;
        parent_of[n] = (pid_t)ppid;
        n++;
    }
    closedir(d);
    /* the set grows from the root until no process joins it (at most n rounds) */
    static unsigned char in[MAX_PROCS];
    memset(in, 0, (size_t)n);
    int signalled = kill(root, sig) == 0, grew = 1;
    for (int round = 0; grew && round < n; round++) {
        grew = 0;
        for (int i = 0; i < n; i++) {
            if (in[i] || pid_of[i] == root)
                continue;
            int joins = parent_of[i] == root;
            for (int k = 0; !joins && k < n; k++)
                joins = in[k] && pid_of[k] == parent_of[i];
            if (joins) {
                in[i] = 1;
                grew = 1;
                signalled += kill(pid_of[i], sig) == 0;
            }
        }
    }
    return signalled;
}
