/* gpu_neighbours.c - TRUSTED: which other programs use this machine's GPUs (see the header). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_neighbours.h"
#include "../wire/stop.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

/* `nvidia-smi -q -d PIDS` started directly (execvp: no shell), a child of the run (stop.h,
 * rule 1), its stderr to /dev/null; its stdout to read from *out. Returns its pid, or -1. */
static pid_t start_query(FILE **out)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd >= 0) {
            dup2(null_fd, 0);
            dup2(null_fd, 2);
        }
        dup2(fds[1], 1);
        char *const argv[] = {"nvidia-smi", "-q", "-d", "PIDS", NULL};
        execvp(argv[0], argv);
        _exit(127); /* no nvidia-smi: nothing is read, no neighbour named */
    }
    close(fds[1]);
    *out = fdopen(fds[0], "r");
    if (!*out) {
        close(fds[0]);
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        stop_forget(pid);
        return -1;
    }
    return pid;
}

/* The query read (or not): it ends, and is no longer the run's to stop. */
static void end_query(FILE *f, pid_t pid)
{
    fclose(f);
    kill(-pid, SIGKILL); /* (it has ended already, or it would wait on a closed pipe) */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    stop_forget(pid);
}

/* Is `pid` this process or started by it (its parent chain reaches us)? */
static int ours(long pid)
{
    const long me = (long)getpid();
    for (int depth = 0; pid > 1 && depth < 64; depth++) {
        if (pid == me)
            return 1;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%ld/status", pid);
        FILE *f = fopen(path, "re");
        if (!f)
            return 0;
        long parent = 0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "PPid: %ld", &parent) == 1)
                break;
        fclose(f);
        pid = parent;
    }
    return 0;
}

/* Is `pid` a program of this workbook's own build (its executable under the folder the run
 * works in: a harness or worker that grades another student on another GPU of a batch)? Those
 * are the batch's own, never a student's neighbour. */
static int workbook_program(long pid)
{
    static char root[4096];
    static int have_root = -1;
    if (have_root < 0)
        have_root = realpath(".", root) != NULL;
    if (!have_root)
        return 0;
    char path[64], exe[4096];
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    const ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    const size_t r = strlen(root);
    return !strncmp(exe, root, r) && exe[r] == '/';
}

static void append(char *out, size_t cap, const char *item)
{
    if (strstr(out, item))
        return;
    const size_t n = strlen(out);
    snprintf(out + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Entries of a list joined by ", ". */
static int count(const char *list)
{
    int n = 0;
    for (const char *c = list; *c; n++) {
        const char *next = strstr(c, ", ");
        c = next ? next + 2 : c + strlen(c);
    }
    return n;
}

int gpu_neighbours(char *out, size_t cap, const char *also)
{
    out[0] = 0;
    if (also && also[0])
        snprintf(out, cap, "%s", also);
    /* "Process ID : 1234", "Type : C", "Name : python3", one block per process per GPU */
    FILE *p = NULL;
    const pid_t query = start_query(&p);
    if (query < 0)
        return 0;
    char line[512], name[64] = "";
    long pid = 0;
    char type = 0;
    while (fgets(line, sizeof line, p)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *value = colon + 1;
        while (isspace((unsigned char)*value))
            value++;
        value[strcspn(value, "\r\n")] = 0;
        if (strstr(line, "Process ID")) {
            pid = atol(value);
            type = 0;
            name[0] = 0;
        } else if (strstr(line, "Type") && pid) {
            type = value[0];
        } else if (strstr(line, "Name") && pid) {
            /* the name is the other program's: printable characters only, shortened */
            size_t k = 0;
            for (const char *c = value; *c && k + 1 < sizeof name; c++)
                name[k++] = isprint((unsigned char)*c) ? *c : '?';
            name[k] = 0;
            /* (a pid from another pid namespace is not in our /proc: then our own programs
             * are known by name) */
            const size_t nl = strlen(name);
            const int our_name = (nl >= 8 && !strcmp(name + nl - 8, "/harness")) ||
                                 strstr(name, "/worker") != NULL;
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/%ld", pid);
            if (!ours(pid) && !workbook_program(pid) && !(access(proc, F_OK) != 0 && our_name)) {
                char item[160];
                snprintf(item, sizeof item, "%ld %s (%s)", pid, name,
                         type == 'G' ? "graphics" : type == 'C' ? "compute" : "compute and graphics");
                append(out, cap, item);
            }
            pid = 0;
        }
    }
    end_query(p, query);
    return count(out);
}

int gpu_neighbours_merge(char *out, size_t cap, const char *more)
{
    char item[160];
    for (const char *c = more; c && *c;) {
        const char *next = strstr(c, ", ");
        const size_t n = next ? (size_t)(next - c) : strlen(c);
        snprintf(item, sizeof item, "%.*s", (int)n, c);
        append(out, cap, item);
        c = next ? next + 2 : c + n;
    }
    return count(out);
}
