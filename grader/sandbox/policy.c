/* policy.c - TRUSTED: what a sandboxed process may see and do, as data: the policy's lists, the
 * system's folders every policy shows, and the grader's policies (the worker's, the compile's,
 * the places a run hides); and how a piece that cannot set its part up fails (sandbox_die).
 * Entering a policy is the other pieces' (pieces.h); this one calls none of them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sandbox.h"
#include "pieces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/landlock.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Failing: one line on stderr, exit 121 (the caller names the sandbox in its message)        */

void sandbox_die(const sandbox_policy *p, const char *fmt, ...)
{
    const int e = errno;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sandbox: the %s's sandbox could not be set up: %s (%s)\n",
            p && p->what ? p->what : "process", msg, strerror(e));
    _exit(121);
}

/* ------------------------------------------------------------------------------------------ */
/* The policy's lists                                                                          */

static void add(const char **list, int *n, const char *path)
{
    if (path && path[0] == '/' && *n < SANDBOX_MAX_PATHS)
        list[(*n)++] = path;
}
void sandbox_visible(sandbox_policy *p, const char *path) { add(p->visible, &p->n_visible, path); }
void sandbox_writable(sandbox_policy *p, const char *path) { add(p->writable, &p->n_writable, path); }
void sandbox_hidden(sandbox_policy *p, const char *path) { add(p->hidden, &p->n_hidden, path); }

void sandbox_add_system(sandbox_policy *p, const char *cuda_home)
{
    /* Programs, libraries, the loader's cache; from /etc only what a compiler or the CUDA
     * driver reads (no passwd, no shadow, no host keys). */
    static const char *const sys[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32",
                                      "/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf",
                                      "/etc/ld.so.conf.d", "/etc/alternatives",
                                      "/etc/localtime", "/usr/local/nvidia"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        sandbox_visible(p, sys[i]);
    static char toolkit[4096];
    if (cuda_home && realpath(cuda_home, toolkit))
        sandbox_visible(p, toolkit);
    /* The folders the loader searches first (the driver's libcuda in a container). */
    static char ld[8192];
    const char *env = getenv("LD_LIBRARY_PATH");
    if (env) {
        snprintf(ld, sizeof ld, "%s", env);
        for (char *save = NULL, *d = strtok_r(ld, ":", &save); d; d = strtok_r(NULL, ":", &save))
            sandbox_visible(p, d);
    }
}

/* (pieces.h) */
int sandbox_path_under(const char *path, const char *dir)
{
    const size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0 || (n == 1 && dir[0] == '/'));
}

/* ------------------------------------------------------------------------------------------ */
/* The grader's policies                                                                       */

int sandbox_places_hide(sandbox_places *places, const char *dir)
{
    if (places->n_extra == SANDBOX_MAX_EXTRA)
        return -1;
    places->extra[places->n_extra++] = dir;
    return 0;
}

/* The named places and the harness's options that carry them. */
static const struct {
    const char *name; /* the option's name (getopt_long's) */
    const char *flag; /* the same on a command line */
    size_t at;        /* where the place is in sandbox_places */
} place_options[] = {
    {"checkout", "--checkout", offsetof(sandbox_places, checkout)},
    {"solutions", "--solutions", offsetof(sandbox_places, solutions)},
    {"labdir", "--labdir", offsetof(sandbox_places, labdir)},
    {"student-objs", "--student-objs", offsetof(sandbox_places, student_objs)},
    {"logs", "--logs", offsetof(sandbox_places, logs)},
};
#define N_PLACE_OPTIONS (sizeof place_options / sizeof place_options[0])
#define PLACE(places, i) (*(const char **)((char *)(places) + place_options[i].at))

int sandbox_places_args(const sandbox_places *places, char **argv, int *n, int max)
{
    for (size_t i = 0; i < N_PLACE_OPTIONS; i++) {
        const char *v = PLACE(places, i);
        if (!v)
            continue;
        if (*n + 2 > max)
            return -1;
        argv[(*n)++] = (char *)place_options[i].flag;
        argv[(*n)++] = (char *)v;
    }
    for (int i = 0; i < places->n_extra; i++) {
        if (*n + 2 > max)
            return -1;
        argv[(*n)++] = (char *)"--hide";
        argv[(*n)++] = (char *)places->extra[i];
    }
    return 0;
}

int sandbox_places_option(sandbox_places *places, const char *name, const char *value)
{
    for (size_t i = 0; i < N_PLACE_OPTIONS; i++)
        if (!strcmp(name, place_options[i].name)) {
            PLACE(places, i) = value;
            return 1;
        }
    if (!strcmp(name, "hide"))
        return sandbox_places_hide(places, value) == 0 ? 1 : -1;
    return 0;
}

/* Hides `path` (links followed; left out when it does not exist), or with `parent` the
 * folder that holds it (left out when that would be the root). */
static void hide_resolved(sandbox_policy *p, const char *path, int parent)
{
    if (!path || p->n_resolved == SANDBOX_MAX_RESOLVED)
        return;
    char *abs = p->resolved[p->n_resolved];
    if (!realpath(path, abs))
        return;
    if (parent) {
        char *slash = strrchr(abs, '/');
        if (!slash || slash == abs)
            return;
        *slash = 0;
    }
    p->n_resolved++;
    sandbox_hidden(p, abs);
}

void sandbox_worker_policy(sandbox_policy *p, const sandbox_places *places, const char *program,
                           const char *object, const char *scratch, int gpu)
{
    memset(p, 0, sizeof *p);
    p->what = "worker";
    sandbox_add_system(p, getenv("CUDA_HOME"));
    sandbox_visible(p, program);
    if (object && object[0])
        sandbox_visible(p, object);
    /* What the student's worker may not even read: this checkout (the solutions, a student
     * kit's prebuilt references, the grader, other trees), the reference's object, every
     * tree's build, the logs, and what a batch names (its output with the other students'
     * trees and reports, its submissions). Its own program and object stay visible at their
     * paths (the sandbox binds them back). */
    if (places) {
        hide_resolved(p, places->checkout, 0);
        hide_resolved(p, places->labdir, 0);
        hide_resolved(p, places->solutions, 0);
        hide_resolved(p, places->student_objs, 1);
        hide_resolved(p, places->logs, 0);
        for (int i = 0; i < places->n_extra; i++)
            hide_resolved(p, places->extra[i], 0);
    }
    /* Nor the system's separate debug information (libc6-dbg and the like): nothing a CUDA
     * program needs, and where it is installed, AddressSanitizer's symbolizer reads and
     * inflates all of libc's the first time a worker names a source line (a WHERE count, a
     * fault's report): 0.16 CPU-seconds of each WHERE count, a fifth of lab 01's. The
     * worker's own objects carry their line tables. */
    hide_resolved(p, "/usr/lib/debug", 0);
    p->scratch = scratch;
    p->gpu = gpu;
    p->tmp_bytes = SANDBOX_WORKER_TMP_BYTES;
    p->shm_bytes = SANDBOX_WORKER_TMP_BYTES;
    p->fsize_bytes = SANDBOX_WORKER_FILE_BYTES;
    p->cpu_seconds = SANDBOX_WORKER_CPU_SECONDS;
    p->open_files = SANDBOX_WORKER_OPEN_FILES;
    p->tasks = SANDBOX_WORKER_TASKS;
}

void sandbox_compile_policy(sandbox_policy *p, const sandbox_compile_inputs *in)
{
    memset(p, 0, sizeof *p);
    p->what = in->what;
    p->null_only = 1;
    for (int i = 0; i < in->n_shown; i++)
        sandbox_visible(p, in->shown[i]);
    for (int i = 0; i < in->n_writable; i++)
        sandbox_writable(p, in->writable[i]);
    sandbox_add_system(p, getenv("CUDA_HOME"));
    sandbox_writable(p, in->work);
    for (int i = 0; i < in->n_hidden; i++)
        hide_resolved(p, in->hidden[i], 0);
    p->no_proc = in->no_proc;
    p->scratch = in->scratch;
    p->cwd = in->work;
    p->cpu_seconds = in->cpu_seconds;
    p->tasks = in->tasks;
    p->open_files = SANDBOX_COMPILE_OPEN_FILES;
    p->as_bytes = in->mem_mib << 20;
    p->fsize_bytes = in->file_mib << 20;
    p->tmp_bytes = SANDBOX_COMPILE_TMP_BYTES;
}
