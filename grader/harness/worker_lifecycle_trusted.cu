/* worker_lifecycle_trusted.cu - TRUSTED SIDE: the life of a worker process. Whether this
 * machine can isolate at all; starting a worker in its sandbox (its policy: ../sandbox/policy.c)
 * with its output relayed into the check's capped log (worker_relay_trusted.cu; in the
 * fallback, this process's own output during a check, where student code prints); stopping it
 * between calls, killing and reaping it with every process of its sandbox; and the failure
 * jump that ends a check when a worker fails. See worker_trusted.h and worker_state_trusted.h. */
#include "worker_state_trusted.h"
#include "../../common/check.h"
#include "../../common/device.h"
#include "../../common/util.h"
#include "../sandbox/sandbox.h"

#if defined(CUDA_EMU)
#include <cuda_emu/share_fd.h>
#else
#include <cuda.h>
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <iostream>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The workers of this harness: this file's alone; the other worker_*_trusted.cu files get it
 * as an argument (worker_state_trusted.h). */
static worker_pool the_pool = {.next_id = 1, .log_lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1,
                               .report_fd = -1, .death_status = -1,
                               .costs = {.lock = PTHREAD_MUTEX_INITIALIZER}};

void worker_cost_add(int what, double since)
{
    const double s = wall_seconds() - since;
    pthread_mutex_lock(&the_pool.costs.lock);
    the_pool.costs.seconds[what] += s;
    the_pool.costs.count[what]++;
    pthread_mutex_unlock(&the_pool.costs.lock);
}

void worker_cost_put(int what, int count, double seconds)
{
    if (!(seconds >= 0 && seconds < 1e6) || count < 0 || count > PROTO_MAX_BUFS)
        return; /* (a worker's account: what it says is taken only where it could be true) */
    pthread_mutex_lock(&the_pool.costs.lock);
    the_pool.costs.seconds[what] += seconds;
    the_pool.costs.count[what] += count;
    pthread_mutex_unlock(&the_pool.costs.lock);
}

void workers_costs_report(int fd, int check)
{
    pthread_mutex_lock(&the_pool.costs.lock);
    const double *s = the_pool.costs.seconds;
    const int *n = the_pool.costs.count;
    dprintf(fd, COSTS_LINE_WRITE, /* (../wire/costs.h: the driver reads it back) */
            check, n[COST_START], s[COST_START], s[COST_READY], n[COST_READY], n[COST_END],
            s[COST_END], n[COST_DEV_MAKE], s[COST_DEV_MAKE], n[COST_DEV_FREE], s[COST_DEV_FREE],
            n[COST_HOST_MAKE], s[COST_HOST_MAKE], n[COST_HOST_FREE], s[COST_HOST_FREE],
            n[COST_HELLO], s[COST_HELLO], n[COST_WORKER_MAP], s[COST_WORKER_MAP],
            n[COST_FORGET]);
    pthread_mutex_unlock(&the_pool.costs.lock);
}

void workers_costs_reset(void)
{
    pthread_mutex_lock(&the_pool.costs.lock);
    memset(the_pool.costs.seconds, 0, sizeof the_pool.costs.seconds);
    memset(the_pool.costs.count, 0, sizeof the_pool.costs.count);
    pthread_mutex_unlock(&the_pool.costs.lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Failures: record what happened and leave the check                                         */

void worker_fail(int impl, int kind, const char *fmt, ...)
{
    if (!the_pool.fail_jump)
        fatal("a worker failed outside a check");
    memset(the_pool.fail, 0, sizeof *the_pool.fail);
    the_pool.fail->impl = impl;
    the_pool.fail->kind = kind;
    the_pool.fail->exit_status = the_pool.death_status;
    the_pool.death_status = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(the_pool.fail->detail, sizeof the_pool.fail->detail, fmt, ap);
    va_end(ap);
    workers_kill(impl);
    longjmp(*the_pool.fail_jump, 1);
}

void workers_begin_check(double seconds, const char *log_path)
{
    pthread_mutex_lock(&the_pool.log_lock);
    the_pool.log_fd =
        log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    the_pool.log_kept = the_pool.log_dropped = 0;
    workers_report_begin(&the_pool, log_path);
    pthread_mutex_unlock(&the_pool.log_lock);
    if (the_pool.inprocess && the_pool.log_fd >= 0 && !the_pool.here.running)
        here_capture_begin(&the_pool);
    the_pool.deadline = wall_seconds() + seconds;
}

void workers_end_check(void)
{
    here_capture_end(&the_pool);
    pthread_mutex_lock(&the_pool.log_lock);
    /* Every call of the check has been answered, and a worker answers only once what it
     * printed is in its pipe (the shim flushes, the call synchronised): all of it is there. */
    for (int i = 0; i < MAX_IMPLS; i++)
        relay_drain(&the_pool, &the_pool.w[i].out, 0);
    workers_report_end(&the_pool);
    if (the_pool.log_fd >= 0) {
        if (the_pool.log_dropped > 0)
            dprintf(the_pool.log_fd,
                    "\n[%lld more bytes of output were not kept: %d kept per check]\n",
                    the_pool.log_dropped, WORKER_LOG_CAP);
        close(the_pool.log_fd);
    }
    the_pool.log_fd = -1;
    pthread_mutex_unlock(&the_pool.log_lock);
    the_pool.fail_jump = NULL;
}

void workers_set_failure_target(jmp_buf *jb, worker_failure *f)
{
    the_pool.fail_jump = jb;
    the_pool.fail = f;
}

/* ------------------------------------------------------------------------------------------ */
/* The sandbox, set up in the child between fork and exec (grader/sandbox/sandbox.h)                   */

/* What a worker sees and may do is decided in ../sandbox/policy.c (sandbox_worker_policy); here
 * only which worker it is: the program, the object it loads, its scratch folder. */
static void worker_policy(sandbox_policy *p, const char *so, const char *scratch);

/* The labs' reference objects the reference's worker sees besides its own (<labdir>/NAME/
 * reference.so, each there when it started, resolved): those it may be told to load in a later
 * lab of this harness (workers_set_so); any other object starts a fresh worker. Read before
 * the fork (the child only names them). The student's workers see none of them. */
#define REFERENCE_VIEWS 16
static char reference_views[REFERENCE_VIEWS][PROTO_OBJECT_MAX];
static int n_reference_views;

static void reference_views_read(void)
{
    n_reference_views = 0;
    const char *labdir = the_pool.hidden ? the_pool.hidden->labdir : NULL;
    DIR *d = labdir ? opendir(labdir) : NULL;
    struct dirent *e;
    while (d && n_reference_views < REFERENCE_VIEWS && (e = readdir(d))) {
        char path[4200], real[4096];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/reference.so", labdir, e->d_name);
        if (realpath(path, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
            strlen(real) < PROTO_OBJECT_MAX)
            snprintf(reference_views[n_reference_views++], PROTO_OBJECT_MAX, "%s", real);
    }
    if (d)
        closedir(d);
}

/* 1 when `so` is one of the reference objects its worker sees. */
static int reference_visible(const char *so)
{
    for (int i = 0; i < n_reference_views; i++)
        if (!strcmp(reference_views[i], so))
            return 1;
    return 0;
}

static void worker_policy(sandbox_policy *p, const char *so, const char *scratch)
{
#if defined(CUDA_EMU)
    const int gpu = 0;
#else
    const int gpu = 1;
#endif
    sandbox_worker_policy(p, the_pool.hidden, the_pool.exe, so, scratch, gpu);
}

/* ------------------------------------------------------------------------------------------ */
/* Starting and stopping workers                                                               */

int worker_slot(int impl)
{
    if (impl < 0 || impl >= MAX_IMPLS)
        fatal("no implementation %d", impl);
    return impl;
}

/* In the forked child of worker_start: the standard descriptors (stdin /dev/null, stdout and
 * stderr into the relay, the socket as fd 3, the ready pipe as fd 4), the sandbox, then the
 * worker's program with only what a CUDA program needs from the environment. Never returns. */
static void worker_exec(worker *w, uid_t uid, int out_fd, int sock_fd, int ready_fd,
                        int report_fd)
{
    /* child: stdin from /dev/null, stdout and stderr into the relay, the socket as fd 3 */
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    dup2(sock_fd, 3);
    dup2(ready_fd, 4); /* written to by the worker once its start-up is over */
    if (report_fd >= 0) /* the emulator's own channel for its fault reports */
        dup2(report_fd, 5);
    closefrom(report_fd >= 0 ? 6 : 5);
    /* Device memory comes by descriptor in both modes: the worker needs nothing of the
     * harness's /dev/shm, and gets one of its own that ends with it. */
    sandbox_policy p;
    worker_policy(&p, w->so, w->scratch[0] ? w->scratch : NULL);
    if (w == &the_pool.w[IMPL_REFERENCE]) /* (trusted code: every lab's reference object) */
        for (int i = 0; i < n_reference_views; i++)
            if (strcmp(reference_views[i], w->so)) /* (its own is there: shown once) */
                sandbox_visible(&p, reference_views[i]);
    p.uid = uid;
    sandbox_enter(&p);
#if defined(CUDA_EMU)
    char *argv[] = {the_pool.exe, w->so, (char *)"3", (char *)"4", (char *)"emu", NULL};
#else
    char *argv[] = {the_pool.exe, w->so, (char *)"3", (char *)"4", (char *)"gpu", NULL};
#endif
    /* Only what a CUDA program needs from the environment: no seed, no grader state
     * (CUDA_EMU_SMS: the emulated device's SM count, the harness's too, as make explain's
     * GPU_PROFILE sets it). */
    const char *keep[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME",
                          "ASAN_OPTIONS", "UBSAN_OPTIONS",
                          "TSAN_OPTIONS", "CUDA_DEVICE_ORDER", "CUDA_EMU_SMS"};
    char *envp[18];
    int ne = 0;
    static char kept[16][1024];
    for (size_t i = 0; i < ARRAY_LEN(keep); i++) {
        const char *v = getenv(keep[i]);
        if (v && ne < 14) {
            snprintf(kept[ne], sizeof kept[ne], "%s=%s", keep[i], v);
            envp[ne] = kept[ne];
            ne++;
        }
    }
    if (report_fd >= 0 && ne < 14)
        envp[ne++] = (char *)"CUDA_EMU_REPORT_FD=5";
    static char home[4200], tmpdir[4200];
    snprintf(home, sizeof home, "HOME=%s", sandbox_tmp(&p));
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", sandbox_tmp(&p));
    envp[ne++] = home;
    envp[ne++] = tmpdir;
    envp[ne] = NULL;
    execve(the_pool.exe, argv, envp);
    fprintf(stderr, "cannot start %s: %s\n", the_pool.exe, strerror(errno));
    _exit(127);
}

void worker_start(int impl)
{
    worker *w = &the_pool.w[worker_slot(impl)];
    if (!w->so[0])
        fatal("implementation %d has no shared object", impl);
    const double at = wall_seconds();
    int sv[2], pipefd[2], ready[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(pipefd, O_CLOEXEC) ||
        pipe2(ready, O_CLOEXEC))
        fatal("cannot make a worker's channels: %s", strerror(errno));
    /* the emulator's channel for its reports: never blocking either side (a full pipe loses
     * what is written, it never stops the worker) */
    int report[2] = {-1, -1};
#if defined(CUDA_EMU)
    if (pipe2(report, O_CLOEXEC | O_NONBLOCK) != 0)
        fatal("cannot make a worker's channels: %s", strerror(errno));
#endif
    /* Graded as root, the worker's own uid must read its program and object (a umask of 077
     * would leave them the owner's alone). */
    if (getuid() == 0) {
        struct stat st;
        const char *mine[] = {the_pool.exe, w->so};
        for (int i = 0; i < 2; i++)
            if (stat(mine[i], &st) == 0 && (st.st_mode & 0555) != 0555)
                chmod(mine[i], (st.st_mode & 07777) | 0555);
    }
    /* Without namespaces a worker gets a scratch folder of its own in place of a private
     * /tmp, given to its uid when the grader runs as root (the uid is chosen here for that);
     * graded as an ordinary user, the folder is the user's already. */
    const uid_t uid = getuid() == 0 ? sandbox_uid() : getuid();
    w->scratch[0] = 0;
    if (sandbox_available() != SANDBOX_NAMESPACES) {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(w->scratch, sizeof w->scratch, "%s/grader-worker-XXXXXX", base);
        if (!mkdtemp(w->scratch) || (getuid() == 0 && chown(w->scratch, uid, uid) != 0))
            fatal("cannot make a worker's scratch folder %s: %s", w->scratch, strerror(errno));
    }
    if (impl == IMPL_REFERENCE)
        reference_views_read();
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        fatal("cannot start a worker: %s", strerror(errno));
    if (pid == 0)
        worker_exec(w, uid, pipefd[1], sv[1], ready[1], report[1]);
    close(sv[1]);
    close(pipefd[1]);
    close(ready[1]);
    if (report[1] >= 0)
        close(report[1]);
    w->report_fd = report[0];
    w->pid = pid;
    w->group = pid; /* it leads a session, and so a group, of its own (sandbox_enter) */
    w->answered = 0;
    w->sent = 0;
    w->doubt = 0;
    w->ready_fd = ready[0];
    w->sock = sv[0];
    relay_start(&the_pool, &w->out, pipefd[0]);
    worker_cost_add(COST_START, at);
}

/* A signal to a worker and every process of its sandbox: the worker leads a session of its
 * own (its process group), which its sandbox's processes share across the pid namespace. */
void worker_signal(const worker *w, int sig)
{
    if (w->pid <= 0)
        return;
    if (kill(-w->pid, sig) != 0)
        kill(w->pid, sig); /* not yet a session of its own */
}

static long long scratch_sum;
static int add_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path, (void)flag, (void)ftw;
    scratch_sum += (long long)st->st_blocks * 512;
    return 0;
}

/* Bytes a worker keeps in its scratch folder (no namespaces: no size-limited /tmp of its own,
 * so the harness holds it to the same size after every call). */
long long worker_scratch_bytes(const worker *w)
{
    scratch_sum = 0;
    if (w->scratch[0])
        nftw(w->scratch, add_entry, 16, FTW_PHYS);
    return scratch_sum;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Until no live process is left in process group `group` (at most `seconds`). The worker's
 * sandbox keeps the process that holds the GPU context a level or two below the one the
 * harness waits for (sandbox.h); only when it is gone has its GPU memory come back. */
static void wait_group_gone(pid_t group, double seconds)
{
    if (group <= 0)
        return;
    const double until = wall_seconds() + seconds;
    for (;;) {
        int alive = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && !alive && (e = readdir(d))) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            char path[300], stat[512];
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            const int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            const ssize_t n = read(fd, stat, sizeof stat - 1);
            close(fd);
            stat[n > 0 ? n : 0] = 0;
            const char *rp = strrchr(stat, ')'); /* "pid (comm) state ppid pgrp ..." */
            char state = 0;
            long ppid = 0, pgrp = 0;
            if (rp && sscanf(rp + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == group &&
                state != 'Z' && state != 'X')
                alive = 1;
        }
        if (d)
            closedir(d);
        if (!alive || wall_seconds() > until)
            return;
        usleep(2000);
    }
}

void workers_kill(int impl)
{
    worker *w = &the_pool.w[worker_slot(impl)];
    if (w->pid == 0)
        return;
    const double at = wall_seconds();
    if (w->pid > 0) { /* -1: already reaped by worker_describe_death */
        worker_signal(w, SIGKILL);
        waitpid(w->pid, NULL, 0);
    }
    wait_group_gone(w->group, 5.0);
    w->group = 0;
    relay_stop(&the_pool, &w->out); /* its last words, written before it died, into the log */
    pthread_mutex_lock(&the_pool.log_lock);
    worker_report_drain(&the_pool, w); /* the emulator's report of what ended it, likewise */
    pthread_mutex_unlock(&the_pool.log_lock);
    if (w->report_fd >= 0)
        close(w->report_fd);
    w->report_fd = -1;
    if (w->scratch[0]) {
        nftw(w->scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        w->scratch[0] = 0;
    }
    close(w->sock);
    if (w->ready_fd >= 0)
        close(w->ready_fd);
    w->ready_fd = -1;
    w->pid = 0;
    w->batch.n_calls = w->batch.n_bufs = 0;
    w->n_pending_fds = 0;
    const unsigned bit = 1u << impl;
    for (int i = 0; i < MAX_SHARED; i++)
        the_pool.buf[i].mapped &= ~bit;
    worker_cost_add(COST_END, at);
}

int workers_ahead(void)
{
    const char *v = getenv("GRADER_PREWARM");
    return v && !strcmp(v, "1");
}

int workers_spares(void)
{
    const char *v = getenv("GRADER_SPARES");
    return !(v && !strcmp(v, "0"));
}

void workers_prewarm(int impl)
{
    worker *w = &the_pool.w[worker_slot(impl)];
    if (the_pool.isolated && !the_pool.inprocess && w->pid == 0 && w->so[0] && workers_spares())
        worker_start(impl);
}

void workers_fresh(int impl)
{
    worker *w = &the_pool.w[worker_slot(impl)];
    if (w->pid != 0 && w->sent)
        workers_kill(impl);
    workers_prewarm(impl);
}

void workers_wait_ready(double seconds)
{
    const double until = wall_seconds() + seconds;
    for (int i = 0; i < MAX_IMPLS; i++) {
        worker *w = &the_pool.w[i];
        if (w->pid <= 0 || w->ready_fd < 0)
            continue;
        const double at = wall_seconds();
        for (;;) { /* the worker writes a byte (POLLIN), or its sandbox ends (POLLHUP) */
            struct pollfd pf = {w->ready_fd, POLLIN, 0};
            const double left = until - wall_seconds();
            const int r = poll(&pf, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0) { /* still starting: the reading is taken as it is, as before a spare */
                worker_cost_add(COST_READY, at);
                return;
            }
            break;
        }
        worker_cost_add(COST_READY, at);
        close(w->ready_fd);
        w->ready_fd = -1;
    }
}

void workers_shutdown(void)
{
    for (int i = 0; i < MAX_IMPLS; i++)
        workers_kill(i);
}

int workers_isolated(void) { return the_pool.isolated; }

void workers_force_inprocess(int on) { the_pool.inprocess = on || !the_pool.isolated; }

int workers_inprocess(void) { return the_pool.inprocess; }

/* Load implementation impl's object into this process (the fallback, and the bench). */
void worker_load_here(int impl)
{
    worker *w = &the_pool.w[impl];
    if (w->dl)
        return;
    w->dl = dlopen(w->so, RTLD_NOW | RTLD_LOCAL);
    if (!w->dl)
        fatal("cannot load %s: %s", w->so, dlerror());
    w->call = (void (*)(int, const shim_arg *, int, cudaStream_t, char *, size_t))dlsym(
        w->dl, "lab_shim_call");
    if (!w->call)
        fatal("%s has no lab_shim_call", w->so);
}

void workers_hide(const sandbox_places *places) { the_pool.hidden = places; }

void workers_set_so(int impl, const char *so)
{
    worker *w = &the_pool.w[worker_slot(impl)];
    char abs_so[4096];
    if (!so || !realpath(so, abs_so))
        snprintf(abs_so, sizeof abs_so, "%s", so ? so : ""); /* reported when it is loaded */
    if (strcmp(w->so, abs_so)) {
        /* The reference's worker kept from the lab before (workers_lab_end) loads the new
         * object, where it sees it; any doubt ends it, and the next use starts a fresh one. */
        const int carry = impl == IMPL_REFERENCE && w->pid > 0 && reference_visible(abs_so);
        snprintf(w->so, sizeof w->so, "%s", abs_so);
        if (!carry || worker_load(&the_pool, impl, WORKER_LOAD_S) != 0) {
            if (carry)
                fprintf(stderr, "harness: the reference's worker kept from the lab before did "
                        "not load %s: ended; a fresh one serves this lab\n", abs_so);
            workers_kill(impl);
        } else {
            fprintf(stderr, "harness: the reference's worker kept from the lab before "
                    "(process %d) loaded %s\n", (int)w->pid, abs_so);
        }
    }
}

/* A lab's end: every worker ended but the reference's, kept for the next lab where it is
 * healthy (workers_lab_keep says when, once the lab's memory is given back); under the
 * fallback, or with GRADER_REFERENCE_KEEP=0, every one. */
void workers_lab_end(void)
{
    const char *keep = getenv("GRADER_REFERENCE_KEEP");
    for (int i = 0; i < MAX_IMPLS; i++)
        if (i != IMPL_REFERENCE || !the_pool.isolated || the_pool.inprocess ||
            (keep && !strcmp(keep, "0")))
            workers_kill(i);
}

/* After the lab's memory was given back (every buffer unmapped in every worker that mapped
 * it): the reference's worker ended unless it is alive, answered every unmapping without an
 * error and maps nothing of the harness's. (GRADER_LAB_END_TEST=refkill, for
 * tests/emu/onehar.sh: its process killed here, as if it died between two labs, unknown to the
 * harness until it is told to load the next lab's object.) */
void workers_lab_keep(void)
{
    worker *w = &the_pool.w[IMPL_REFERENCE];
    if (w->pid == 0)
        return;
    int doubt = w->pid < 0 || w->doubt;
    for (int i = 0; i < MAX_SHARED; i++)
        doubt |= (the_pool.buf[i].mapped & (1u << IMPL_REFERENCE)) != 0;
    int status;
    if (!doubt && waitpid(w->pid, &status, WNOHANG) != 0)
        doubt = 1; /* (it ended, or is no child: workers_kill reaps nothing then) */
    if (doubt) {
        fprintf(stderr, "harness: the reference's worker is not kept for the next lab (%s)\n",
                w->doubt ? "an unmapping failed" : "it ended, or still maps a buffer");
        workers_kill(IMPL_REFERENCE);
        return;
    }
    const char *test = getenv("GRADER_LAB_END_TEST");
    if (test && !strcmp(test, "refkill"))
        worker_signal(w, SIGKILL); /* (its sandbox's processes with it; not reaped here) */
    fprintf(stderr, "harness: the reference's worker (process %d) kept for the next lab: nothing "
            "of this lab mapped in it\n", (int)w->pid);
}

/* Can this machine isolate? CUDA IPC on a device buffer, and the sandbox in a child. */
static int probe_isolation(char *why, size_t len)
{
#if defined(CUDA_EMU)
    void *p = NULL;
    int fd = -1;
    CUDA_CHECK(cudaMalloc(&p, 1 << 20));
    const cudaError_t e = cuda_emu::export_fd(&fd, p);
    if (fd >= 0)
        close(fd);
    CUDA_CHECK(cudaFree(p));
    cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(why, len, "the emulator cannot share memory between processes (%s)",
                 cudaGetErrorName(e));
        return 0;
    }
#else
    int dev = 0, supported = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaFree(0)); /* a current context for the driver API */
    if (cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                             dev) != CUDA_SUCCESS || !supported) {
        snprintf(why, len, "this GPU or driver cannot share memory between processes "
                           "(no POSIX file-descriptor handles, as on WSL2)");
        return 0;
    }
#endif
    if (sandbox_available() == SANDBOX_NONE) {
        snprintf(why, len, "this machine allows neither new namespaces nor Landlock, so student "
                           "code cannot be given a view of its own");
        return 0;
    }
    int pipefd[2];
    char probe[1024], cwd[900];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    snprintf(probe, sizeof probe, "%s/.grader-write-probe-%d", cwd, (int)getpid());
    if (pipe(pipefd) != 0)
        return snprintf(why, len, "cannot make a pipe"), 0;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], 2);
        sandbox_policy p;
        worker_policy(&p, NULL, NULL);
        sandbox_enter(&p);
        const int fd = open(probe, O_WRONLY | O_CREAT, 0600);
        if (fd >= 0) {
            fprintf(stderr, "sandbox: the tree stayed writable\n");
            unlink(probe);
            _exit(122);
        }
        _exit(0);
    }
    close(pipefd[1]);
    char msg[256] = "";
    const ssize_t r = read(pipefd[0], msg, sizeof msg - 1);
    close(pipefd[0]);
    msg[r > 0 ? r : 0] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *nl = strchr(msg, '\n');
        if (nl)
            *nl = 0;
        snprintf(why, len, "%s", msg[0] ? msg : "the sandbox could not be set up here");
        return 0;
    }
    snprintf(why, len, "student code runs in its own sandboxed process (%s)",
             sandbox_available() == SANDBOX_NAMESPACES
                 ? "namespaces: a view of its own, another uid when graded as root"
                 : "Landlock, no namespaces here: a view of its own, another uid when graded as root");
    return 1;
}

int workers_init(const char *worker_exe, const char *student_so, const char *reference_so,
                 int isolate, char *why, size_t why_len)
{
    /* absolute: the worker starts in its own /tmp */
    if (!worker_exe || !realpath(worker_exe, the_pool.exe))
        snprintf(the_pool.exe, sizeof the_pool.exe, "%s", worker_exe ? worker_exe : "");
    if (student_so)
        workers_set_so(IMPL_STUDENT, student_so);
    if (reference_so)
        workers_set_so(IMPL_REFERENCE, reference_so);
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0); /* no worker may read or write this process's memory */
    the_pool.host_node = device_host_numa_node(0);
    if (the_pool.host_node >= 0)
        fprintf(stderr, "harness: shared host memory made on NUMA node %d, the GPU's\n",
                the_pool.host_node);
    if (!isolate) {
        snprintf(why, why_len, "isolation switched off (GRADER_ISOLATION=off)");
        the_pool.isolated = 0;
    } else {
        the_pool.isolated = probe_isolation(why, why_len);
    }
    the_pool.inprocess = !the_pool.isolated;
    /* The fallback: student code prints through this process's stdio, relayed to the check's
     * log (here_capture_begin); unbuffered, a crash loses none of it. */
    if (the_pool.inprocess)
        setvbuf(stdout, NULL, _IONBF, 0);
    return the_pool.isolated;
}

void workers_idle_baseline(void)
{
#if !defined(CUDA_EMU)
    if (the_pool.isolated)
        worker_idle_probe_s(0);
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Reaping: why a worker ended                                                                 */

/* Why a worker's process ended, for the report; reaps it. */
void worker_describe_death(int impl, char *buf, size_t len, int *sig)
{
    worker *w = &the_pool.w[impl];
    int status = 0;
    *sig = 0;
    /* It closed its end: it is exiting, or pretending to. Half a second to finish dying. */
    pid_t r = 0;
    for (int i = 0; i < 100 && r == 0; i++) {
        r = waitpid(w->pid, &status, WNOHANG);
        if (r == 0) {
            const struct timespec nap = {0, 5 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
    }
    if (r == w->pid && WIFSIGNALED(status)) {
        *sig = WTERMSIG(status);
        if (*sig == SIGSYS)
            snprintf(buf, len, "stopped by the sandbox (signal %d, %s): the code "
                     "made a system call a grading process may not make (starting programs, "
                     "new processes, debugging other processes)", *sig, strsignal(*sig));
#if defined(CUDA_EMU)
        else if (*sig == SIGXFSZ) /* the emulator keeps each device allocation in a file */
            snprintf(buf, len, "%s (signal %d): a file, or under the CPU emulator one cudaMalloc, "
                     "larger than the sandbox allows", strsignal(*sig), *sig);
#endif
        else
            snprintf(buf, len, "%s (signal %d)", strsignal(*sig), *sig);
    } else if (r == w->pid && WIFEXITED(status) && !w->answered &&
               (WEXITSTATUS(status) == 121 || WEXITSTATUS(status) == 127 ||
                WEXITSTATUS(status) == 2)) {
        *sig = -1; /* it could not start, or code it loaded ended it first: the harness checks */
        snprintf(buf, len, "a worker process could not start (status %d): see the check's log",
                 WEXITSTATUS(status));
    } else if (r == w->pid && WIFEXITED(status)) {
        snprintf(buf, len, "the process exited with status %d during a call",
                 WEXITSTATUS(status));
    } else {
        snprintf(buf, len, "the process broke its channel to the grader");
    }
    the_pool.death_status = r == w->pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r == w->pid)
        w->pid = -1; /* reaped: workers_kill must not wait for it again */
}

/* ------------------------------------------------------------------------------------------ */
/* The harness's interface (worker_trusted.h) to the other files' functions, on this pool     */

cudaError_t workers_try_device_alloc(size_t bytes, void **p)
{
    return pool_try_device_alloc(&the_pool, bytes, p);
}
void *workers_device_alloc(size_t bytes) { return pool_device_alloc(&the_pool, bytes); }
int workers_reclaim_memory(memory_reclaim *m) { return pool_reclaim_memory(&the_pool, m); }
void workers_device_free(void *p) { pool_device_free(&the_pool, p); }
void workers_unregister(void *base) { pool_unregister(&the_pool, base); }
void workers_device_speed_begin(size_t first_bytes)
{
    pool_device_speed_begin(&the_pool, first_bytes);
}
size_t workers_device_speed_slack(void) { return pool_device_speed_slack(&the_pool); }
void workers_device_speed_more(int problems) { pool_device_speed_more(&the_pool, problems); }
void workers_regions_drain(void) { pool_regions_drain(&the_pool); }
void workers_free_begin(void) { pool_free_batch(&the_pool, 1); }
void workers_free_end(void) { pool_free_batch(&the_pool, 0); }
void workers_host_reserve(size_t bytes) { pool_host_reserve(&the_pool, bytes); }
void workers_host_reserve_made(void) { pool_host_reserve_made(&the_pool); }
int workers_lab_memory_end(void) { return pool_lab_memory_end(&the_pool); }
void *workers_host_alloc(size_t bytes) { return pool_host_alloc(&the_pool, bytes); }
void workers_host_free(void *p) { pool_host_free(&the_pool, p); }
void workers_call(int impl, cudaStream_t s, int entry, const char *fmt, va_list ap)
{
    pool_call(&the_pool, impl, s, entry, fmt, ap);
}
void workers_batch_begin(void) { pool_batch_begin(&the_pool); }
void workers_batch_end(void) { pool_batch_end(&the_pool); }
void workers_count_begin(int impl, int fd) { pool_count_begin(&the_pool, impl, fd); }
void workers_count_end(int impl) { pool_count_end(&the_pool, impl); }
void workers_null_call(int impl, cudaStream_t s) { pool_null_call(&the_pool, impl, s); }
double workers_wait_idle(int impl, cudaStream_t s) { return pool_wait_idle(&the_pool, impl, s); }
int workers_note_gpu_state(cudaStream_t s) { return pool_note_gpu_state(&the_pool, s); }
