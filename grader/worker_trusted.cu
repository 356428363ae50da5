/* worker_trusted.cu - TRUSTED SIDE: starting, sandboxing and talking to worker processes.
 * See worker_trusted.h. */
#include "harness.h"
#include "proto.h"
#include "shim.h"
#include "worker_trusted.h"
#include "../common/check.h"
#include "../common/util.h"
#include "sandbox.h"

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
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_IMPLS (IMPL_EXTRA + 16)
#define MAX_SHARED 2048

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                       */

/* A buffer the harness may hand to workers. */
typedef struct shared_buf {
    char *base;       /* harness address; NULL for a free slot */
    size_t bytes;     /* size */
    uint32_t id;      /* never reused */
    int host;         /* 1: host memory backed by memfd `fd` */
    int fd;           /* host: the memfd; device: the exported allocation (GPU: the VMM
                         export; emulator: its memfd), -1 when not shared */
    unsigned long long vmm; /* device (GPU): the CUmemGenericAllocationHandle */
    unsigned mapped;  /* bit i: worker slot i has mapped it */
} shared_buf;

/* One worker process (isolated mode) or loaded object (fallback). */
typedef struct worker {
    char so[4096];     /* the shared object (absolute) */
    pid_t pid;         /* running process, 0 if none */
    int sock;          /* command socket */
    int out;           /* read end of its stdout/stderr pipe */
    void *dl;          /* fallback: dlopen handle */
    void (*call)(int, const shim_arg *, int, cudaStream_t, char *, size_t); /* fallback */
    proto_cmd batch;   /* queued calls (inside a batch) */
    int pending_fds[PROTO_MAX_BUFS];
    int n_pending_fds;
    char scratch[4096]; /* its scratch folder where there are no namespaces, or "" */
    int answered;      /* 1 once the process answered a command: it started, and what ends
                          it from then on is the code it loaded */
    pid_t group;       /* its process group (its sandbox's processes), 0 if none */
} worker;

static struct {
    char exe[4096];          /* worker_untrusted binary (absolute) */
    const sandbox_places *hidden; /* what no worker may see, by name (workers_hide), or NULL */
    int isolated;            /* 1: processes; 0: fallback */
    int inprocess;           /* 1: calls go to objects loaded here (fallback, or bench) */
    worker w[MAX_IMPLS];
    shared_buf buf[MAX_SHARED];
    uint32_t next_id;
    int in_batch;
    jmp_buf *fail_jump;
    worker_failure *fail;
    double deadline;         /* wall_seconds() by which the current check must end */
    pthread_mutex_t log_lock;
    int log_fd;              /* the current check's log */
    long long log_kept, log_dropped;
    int death_status;        /* exit status of the worker describe_death just reaped, -1 if it
                                did not exit (the next fail_check reports it) */
} W = {.next_id = 1, .log_lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1, .death_status = -1};

/* ------------------------------------------------------------------------------------------ */
/* Failures: record what happened and leave the check                                         */

static void fail_check(int impl, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void fail_check(int impl, int kind, const char *fmt, ...)
{
    if (!W.fail_jump)
        fatal("a worker failed outside a check");
    memset(W.fail, 0, sizeof *W.fail);
    W.fail->impl = impl;
    W.fail->kind = kind;
    W.fail->exit_status = W.death_status;
    W.death_status = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(W.fail->detail, sizeof W.fail->detail, fmt, ap);
    va_end(ap);
    workers_kill(impl);
    longjmp(*W.fail_jump, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Output relay: a worker's stdout/stderr into the current check's log, capped               */

static void *relay(void *arg)
{
    const int fd = (int)(intptr_t)arg;
    char buf[8192];
    for (;;) {
        const ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        pthread_mutex_lock(&W.log_lock);
        long long keep = WORKER_LOG_CAP - W.log_kept;
        keep = keep < 0 ? 0 : keep > r ? r : keep;
        if (W.log_fd >= 0 && keep > 0 && write(W.log_fd, buf, (size_t)keep) < 0)
            keep = 0;
        W.log_kept += keep;
        W.log_dropped += r - keep;
        pthread_mutex_unlock(&W.log_lock);
    }
    close(fd);
    return NULL;
}

void workers_begin_check(double seconds, const char *log_path)
{
    pthread_mutex_lock(&W.log_lock);
    W.log_fd = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    W.log_kept = W.log_dropped = 0;
    pthread_mutex_unlock(&W.log_lock);
    W.deadline = wall_seconds() + seconds;
}

void workers_end_check(void)
{
    pthread_mutex_lock(&W.log_lock);
    if (W.log_fd >= 0) {
        if (W.log_dropped > 0)
            dprintf(W.log_fd, "\n[%lld more bytes of output were not kept: %d kept per check]\n",
                    W.log_dropped, WORKER_LOG_CAP);
        close(W.log_fd);
    }
    W.log_fd = -1;
    pthread_mutex_unlock(&W.log_lock);
    W.fail_jump = NULL;
}

void workers_set_failure_target(jmp_buf *jb, worker_failure *f)
{
    W.fail_jump = jb;
    W.fail = f;
}

static double idle_probe_s(cudaStream_t s);

/* ------------------------------------------------------------------------------------------ */
/* The sandbox, set up in the child between fork and exec (grader/sandbox.h)                   */

/* What a worker sees and may do is decided in sandbox.c (sandbox_worker_policy); here only
 * which worker it is: the program, the object it loads, its scratch folder. */
static void worker_policy(sandbox_policy *p, const char *so, const char *scratch)
{
#if defined(CUDA_EMU)
    const int gpu = 0;
#else
    const int gpu = 1;
#endif
    sandbox_worker_policy(p, W.hidden, W.exe, so, scratch, gpu);
}

/* ------------------------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------------------------ */
/* Starting and stopping workers                                                               */

static int impl_slot(int impl)
{
    if (impl < 0 || impl >= MAX_IMPLS)
        fatal("no implementation %d", impl);
    return impl;
}

static void start_worker(int impl)
{
    worker *w = &W.w[impl_slot(impl)];
    if (!w->so[0])
        fatal("implementation %d has no shared object", impl);
    int sv[2], pipefd[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(pipefd, O_CLOEXEC))
        fatal("cannot make a worker's channels: %s", strerror(errno));
    /* Graded as root, the worker's own uid must read its program and object (a umask of 077
     * would leave them the owner's alone). */
    if (getuid() == 0) {
        struct stat st;
        const char *mine[] = {W.exe, w->so};
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
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        fatal("cannot start a worker: %s", strerror(errno));
    if (pid == 0) {
        /* child: stdin from /dev/null, stdout and stderr into the relay, the socket as fd 3 */
        const int null_fd = open("/dev/null", O_RDONLY);
        dup2(null_fd, 0);
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        dup2(sv[1], 3);
        closefrom(4);
        /* Device memory comes by descriptor in both modes: the worker needs nothing of the
         * harness's /dev/shm, and gets one of its own that ends with it. */
        sandbox_policy p;
        worker_policy(&p, w->so, w->scratch[0] ? w->scratch : NULL);
        p.uid = uid;
        sandbox_enter(&p);
        char *argv[] = {W.exe, w->so, (char *)"3", NULL};
        /* Only what a CUDA program needs from the environment: no seed, no grader state. */
        const char *keep[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME",
                              "ASAN_OPTIONS", "UBSAN_OPTIONS",
                              "TSAN_OPTIONS", "CUDA_DEVICE_ORDER"};
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
        static char home[4200], tmpdir[4200];
        snprintf(home, sizeof home, "HOME=%s", sandbox_tmp(&p));
        snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", sandbox_tmp(&p));
        envp[ne++] = home;
        envp[ne++] = tmpdir;
        envp[ne] = NULL;
        execve(W.exe, argv, envp);
        fprintf(stderr, "cannot start %s: %s\n", W.exe, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    close(pipefd[1]);
    w->pid = pid;
    w->group = pid; /* it leads a session, and so a group, of its own (sandbox_enter) */
    w->answered = 0;
    w->sock = sv[0];
    w->out = pipefd[0];
    pthread_t t;
    if (pthread_create(&t, NULL, relay, (void *)(intptr_t)pipefd[0]) != 0)
        fatal("cannot start an output relay");
    pthread_detach(t);
}

/* A signal to a worker and every process of its sandbox: the worker leads a session of its
 * own (its process group), which its sandbox's processes share across the pid namespace. */
static void signal_worker(const worker *w, int sig)
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
static long long scratch_bytes(const worker *w)
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
    worker *w = &W.w[impl_slot(impl)];
    if (w->pid == 0)
        return;
    if (w->pid > 0) { /* -1: already reaped by describe_death */
        signal_worker(w, SIGKILL);
        waitpid(w->pid, NULL, 0);
    }
    wait_group_gone(w->group, 5.0);
    w->group = 0;
    if (w->scratch[0]) {
        nftw(w->scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        w->scratch[0] = 0;
    }
    close(w->sock);
    w->pid = 0;
    w->batch.n_calls = w->batch.n_bufs = 0;
    w->n_pending_fds = 0;
    const unsigned bit = 1u << impl;
    for (int i = 0; i < MAX_SHARED; i++)
        W.buf[i].mapped &= ~bit;
}

void workers_shutdown(void)
{
    for (int i = 0; i < MAX_IMPLS; i++)
        workers_kill(i);
}

int workers_isolated(void) { return W.isolated; }

void workers_force_inprocess(int on) { W.inprocess = on || !W.isolated; }

int workers_inprocess(void) { return W.inprocess; }

/* Load implementation impl's object into this process (the fallback, and the bench). */
static void load_here(int impl)
{
    worker *w = &W.w[impl];
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

void workers_hide(const sandbox_places *places) { W.hidden = places; }

void workers_set_so(int impl, const char *so)
{
    worker *w = &W.w[impl_slot(impl)];
    char abs_so[4096];
    if (!so || !realpath(so, abs_so))
        snprintf(abs_so, sizeof abs_so, "%s", so ? so : ""); /* reported when it is loaded */
    if (strcmp(w->so, abs_so)) {
        workers_kill(impl);
        snprintf(w->so, sizeof w->so, "%s", abs_so);
    }
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
    if (!worker_exe || !realpath(worker_exe, W.exe))
        snprintf(W.exe, sizeof W.exe, "%s", worker_exe ? worker_exe : "");
    if (student_so)
        workers_set_so(IMPL_STUDENT, student_so);
    if (reference_so)
        workers_set_so(IMPL_REFERENCE, reference_so);
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0); /* no worker may read or write this process's memory */
    if (!isolate) {
        snprintf(why, why_len, "isolation switched off (GRADER_ISOLATION=off)");
        W.isolated = 0;
    } else {
        W.isolated = probe_isolation(why, why_len);
    }
    W.inprocess = !W.isolated;
#if !defined(CUDA_EMU)
    if (W.isolated)
        idle_probe_s(0); /* measured now, while no worker runs */
#endif
    return W.isolated;
}

/* ------------------------------------------------------------------------------------------ */
/* Shared buffers                                                                              */

static shared_buf *find_buf(const void *p)
{
    const char *c = (const char *)p;
    for (int i = 0; i < MAX_SHARED; i++)
        if (W.buf[i].base && c >= W.buf[i].base && c < W.buf[i].base + W.buf[i].bytes)
            return &W.buf[i];
    return NULL;
}

static shared_buf *new_buf(void *base, size_t bytes)
{
    for (int i = 0; i < MAX_SHARED; i++)
        if (!W.buf[i].base) {
            shared_buf *b = &W.buf[i];
            memset(b, 0, sizeof *b);
            b->base = (char *)base;
            b->bytes = bytes;
            b->id = W.next_id++;
            b->fd = -1; /* set by the caller where there is one */
            return b;
        }
    fatal("more than %d shared buffers", MAX_SHARED);
}

#if !defined(CUDA_EMU)
#define CU_CHECK(call)                                                                      \
    do {                                                                                    \
        const CUresult r_ = (call);                                                         \
        if (r_ != CUDA_SUCCESS) {                                                           \
            const char *n_ = "?";                                                           \
            cuGetErrorName(r_, &n_);                                                        \
            fatal("%s failed: %s (%s:%d)", #call, n_, __FILE__, __LINE__);                  \
        }                                                                                   \
    } while (0)

static CUmemAllocationProp shareable_prop(void)
{
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}
#endif

cudaError_t workers_try_device_alloc(size_t bytes, void **out)
{
    *out = NULL;
#if !defined(CUDA_EMU)
    if (W.isolated) {
        /* A virtual-memory allocation that can be exported as a file descriptor. */
        CUmemAllocationProp prop = shareable_prop();
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        const size_t size = (bytes + gran - 1) / gran * gran;
        CUmemGenericAllocationHandle h;
        CUresult r = cuMemCreate(&h, size, &prop, 0);
        if (r == CUDA_ERROR_OUT_OF_MEMORY)
            return cudaErrorMemoryAllocation;
        CU_CHECK(r);
        CUdeviceptr ptr;
        CU_CHECK(cuMemAddressReserve(&ptr, size, 0, 0, 0));
        /* Mapping needs a little device memory of its own (page tables): short of it, undone */
        r = cuMemMap(ptr, size, 0, h, 0);
        CUmemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        if (r == CUDA_SUCCESS) {
            r = cuMemSetAccess(ptr, size, &access, 1);
            if (r != CUDA_SUCCESS)
                cuMemUnmap(ptr, size);
        }
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            cuMemAddressFree(ptr, size);
            cuMemRelease(h);
            return cudaErrorMemoryAllocation;
        }
        CU_CHECK(r);
        int fd = -1;
        CU_CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        shared_buf *b = new_buf((void *)ptr, size);
        b->fd = fd;
        b->vmm = (unsigned long long)h;
        *out = (void *)ptr;
        return cudaSuccess;
    }
#endif
    void *p = NULL;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: the next call must not see it */
        return e;
    }
    CUDA_CHECK(e);
#if defined(CUDA_EMU)
    if (W.isolated) { /* the emulator's allocation, shared as a memfd */
        int fd = -1;
        CUDA_CHECK(cuda_emu::export_fd(&fd, p));
        new_buf(p, bytes)->fd = fd;
    }
#endif
    *out = p;
    return cudaSuccess;
}

void *workers_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (workers_try_device_alloc(bytes, &p) != cudaSuccess)
        cuda_fail(cudaErrorMemoryAllocation, "allocating device memory", __FILE__, __LINE__);
    return p;
}

int workers_reclaim_memory(memory_reclaim *m)
{
    memset(m, 0, sizeof *m);
    size_t free_now = 0, total = 0;
    if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    m->total = total;
    m->free_before = m->free_after = free_now;
    if (W.inprocess || W.w[IMPL_STUDENT].pid <= 0)
        return 0; /* no process of the student's holds anything apart */
    workers_kill(IMPL_STUDENT);
    m->student_ended = 1;
    /* The driver gives a dead process's memory back as it tears the process down, which may
     * end a little after the process is reaped: read until the figure holds still. */
    size_t last = free_now;
    int steady = 0;
    const double start = wall_seconds();
    while (steady < 3 && wall_seconds() - start < 3.0) {
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) {
            cudaGetLastError();
            break;
        }
        steady = free_now == last ? steady + 1 : 0;
        last = free_now;
    }
    m->free_after = last;
    return 0;
}

void workers_device_free(void *p)
{
    shared_buf *b = find_buf(p);
    if (!b) {
        CUDA_CHECK(cudaFree(p));
        return;
    }
    const int fd = b->fd;
    const unsigned long long vmm = b->vmm;
    const size_t size = b->bytes;
    workers_unregister(p); /* every worker unmaps it first */
#if !defined(CUDA_EMU)
    if (fd >= 0) {
        CUDA_CHECK(cudaDeviceSynchronize());
        CU_CHECK(cuMemUnmap((CUdeviceptr)p, size));
        CU_CHECK(cuMemAddressFree((CUdeviceptr)p, size));
        CU_CHECK(cuMemRelease((CUmemGenericAllocationHandle)vmm));
        close(fd);
        return;
    }
#endif
    (void)vmm, (void)size;
    if (fd >= 0)
        close(fd); /* the emulator's descriptor: the memory goes with the last mapping */
    CUDA_CHECK(cudaFree(p));
}

/* Round trip of one command with a time limit; the reply is checked, never trusted. */
static void exchange(int impl, proto_cmd *c, const int *fds, int n_fds, proto_reply *r);

void workers_unregister(void *base)
{
    shared_buf *b = find_buf(base);
    if (!b)
        return;
    /* Workers that mapped it unmap it first (CUDA requires it before the free). */
    for (int impl = 0; impl < MAX_IMPLS; impl++) {
        if (!(b->mapped & (1u << impl)) || W.w[impl].pid <= 0)
            continue;
        static proto_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = PROTO_MAGIC;
        c.op = PROTO_FORGET;
        c.n_bufs = 1;
        c.buf[0].id = b->id;
        proto_reply r;
        jmp_buf *saved = W.fail_jump;
        W.fail_jump = NULL; /* a worker that will not unmap is killed, which unmaps it */
        if (W.w[impl].pid > 0) {
            signal_worker(&W.w[impl], SIGCONT);
            const ssize_t n = write(W.w[impl].sock, &c, sizeof c);
            struct pollfd pf = {W.w[impl].sock, POLLIN, 0};
            if (n != (ssize_t)sizeof c || poll(&pf, 1, 5000) != 1 ||
                read(W.w[impl].sock, &r, sizeof r) != (ssize_t)sizeof r)
                workers_kill(impl);
            else
                signal_worker(&W.w[impl], SIGSTOP);
        }
        W.fail_jump = saved;
    }
    if (b->host) {
        cudaHostUnregister(b->base);
        munmap(b->base, b->bytes);
        close(b->fd);
    }
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

void *workers_host_alloc(size_t bytes)
{
    if (!W.isolated) {
        void *p = NULL;
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
        return p;
    }
    /* Its size sealed: a worker holding the descriptor cannot cut it short under the
     * harness's mapping (whose next access would die of SIGBUS). */
    const int fd = memfd_create("grader-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        fatal("cannot make %zu bytes of shared host memory: %s", bytes, strerror(errno));
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED)
        fatal("cannot map %zu bytes of shared host memory: %s", bytes, strerror(errno));
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    shared_buf *b = new_buf(p, bytes);
    b->host = 1;
    b->fd = fd;
    return p;
}

void workers_host_free(void *p)
{
    if (!W.isolated) {
        CUDA_CHECK(cudaFreeHost(p));
        return;
    }
    workers_unregister(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Calls                                                                                       */

static void send_all(int impl, int sock, const void *data, size_t len, const int *fds, int n_fds)
{
    const char *p = (const char *)data;
    int first = 1;
    while (len > 0) {
        struct iovec iov = {(void *)p, len};
        char control[CMSG_SPACE(sizeof(int) * PROTO_MAX_BUFS)];
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (first && n_fds > 0) {
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
        }
        const ssize_t w = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fail_check(impl, WORKER_FAIL_CRASH, "the process stopped reading its commands");
        first = 0;
        p += w;
        len -= (size_t)w;
    }
}

/* Why a worker's process ended, for the report; reaps it. */
static void describe_death(int impl, char *buf, size_t len, int *sig)
{
    worker *w = &W.w[impl];
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
    W.death_status = r == w->pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r == w->pid)
        w->pid = -1; /* reaped: workers_kill must not wait for it again */
}

/* Send c to worker impl and read its reply within the check's time. */
static void round_trip(int impl, proto_cmd *c, const int *fds, int n_fds, proto_reply *r)
{
    worker *w = &W.w[impl];
    signal_worker(w, SIGCONT);
    send_all(impl, w->sock, c, sizeof *c, fds, n_fds);
    size_t got = 0;
    while (got < sizeof *r) {
        double left = W.deadline - wall_seconds();
        if (left < 0)
            left = 0;
        struct pollfd pf = {w->sock, POLLIN, 0};
        const int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            fail_check(impl, WORKER_FAIL_HANG, "no answer from the call within the check's "
                       "time limit");
        const ssize_t n = read(w->sock, (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            char why[256];
            int sig;
            describe_death(impl, why, sizeof why, &sig);
            fail_check(impl, sig < 0 ? WORKER_FAIL_START : WORKER_FAIL_CRASH, "%s", why);
        }
        got += (size_t)n;
    }
    w->answered = 1;
    signal_worker(w, SIGSTOP); /* nothing of it runs while the harness is not waiting for it */
    if (w->scratch[0] && scratch_bytes(w) > SANDBOX_WORKER_TMP_BYTES)
        fail_check(impl, WORKER_FAIL_CRASH, "it kept %lld MB in its /tmp, more than the %lld MB "
                   "a worker may", scratch_bytes(w) >> 20, SANDBOX_WORKER_TMP_BYTES >> 20);
    r->error_name[sizeof r->error_name - 1] = 0;
    r->problem[sizeof r->problem - 1] = 0;
    if (r->magic != PROTO_MAGIC)
        fail_check(impl, WORKER_FAIL_CRASH, "garbage on the worker's channel");
    if (r->cuda_error != 0) {
        char name[64];
        snprintf(name, sizeof name, "%s", r->error_name[0] ? r->error_name : "cudaError");
        memset(W.fail, 0, sizeof *W.fail);
        W.fail->impl = impl;
        W.fail->kind = WORKER_FAIL_CUDA;
        snprintf(W.fail->cuda_name, sizeof W.fail->cuda_name, "%s", name);
        snprintf(W.fail->detail, sizeof W.fail->detail, "%s", name);
        workers_kill(impl); /* its context is broken: the next check starts a fresh one */
        if (!W.fail_jump)
            fatal("a worker failed outside a check");
        longjmp(*W.fail_jump, 1);
    }
}

static void exchange(int impl, proto_cmd *c, const int *fds, int n_fds, proto_reply *r)
{
    if (W.w[impl].pid <= 0) {
        start_worker(impl);
        /* An empty command first, before any call: a process that ends before answering it
         * could not start (the grader's problem, or the machine's); once it has answered, an
         * end (whatever its exit status) is the doing of the code it loaded. */
        static proto_cmd hello;
        memset(&hello, 0, sizeof hello);
        hello.magic = PROTO_MAGIC;
        hello.op = PROTO_NULL;
        proto_reply hr;
        round_trip(impl, &hello, NULL, 0, &hr);
    }
    round_trip(impl, c, fds, n_fds, r);
}

/* Add buffer b to command c for worker impl (with its descriptor, first time only). */
static uint32_t add_buf(proto_cmd *c, int impl, shared_buf *b, int *fds, int *n_fds)
{
    for (int i = 0; i < c->n_bufs; i++)
        if (c->buf[i].id == b->id)
            return (uint32_t)i;
    if (c->n_bufs == PROTO_MAX_BUFS)
        fatal("a call names more than %d buffers", PROTO_MAX_BUFS);
    proto_buf *pb = &c->buf[c->n_bufs];
    pb->id = b->id;
    pb->bytes = b->bytes;
    if (b->host) {
        pb->kind = PROTO_BUF_HOST;
        if (!(b->mapped & (1u << impl)))
            fds[(*n_fds)++] = b->fd;
    } else { /* device memory: the allocation's file descriptor */
        pb->kind = PROTO_BUF_DEVICE;
        if (!(b->mapped & (1u << impl)))
            fds[(*n_fds)++] = b->fd;
    }
    b->mapped |= 1u << impl; /* after this command it is (or the worker is gone) */
    return (uint32_t)c->n_bufs++;
}

static void send_batch(int impl)
{
    worker *w = &W.w[impl];
    if (w->batch.n_calls == 0)
        return;
    proto_reply r;
    exchange(impl, &w->batch, w->pending_fds, w->n_pending_fds, &r);
    w->batch.n_calls = w->batch.n_bufs = 0;
    w->n_pending_fds = 0;
    if (r.problem[0]) /* a rule the shim saw broken: reported with the output */
        harness_note_problem(impl, r.problem);
}

void workers_call(int impl, cudaStream_t s, int entry, const char *fmt, va_list ap)
{
    worker *w = &W.w[impl_slot(impl)];
    if (W.inprocess) {
        load_here(impl);
        shim_arg args[PROTO_MAX_ARGS];
        memset(args, 0, sizeof args);
        int n = 0;
        for (const char *f = fmt; *f && n < PROTO_MAX_ARGS; f++, n++) {
            switch (*f) {
            case 'p': args[n].p = va_arg(ap, void *); break;
            case 'i': args[n].i = va_arg(ap, int); break;
            case 'l': args[n].i = va_arg(ap, long long); break;
            case 'z': args[n].i = (long long)va_arg(ap, size_t); break;
            case 'f': args[n].f = va_arg(ap, double); break;
            default: fatal("harness_call: bad format '%c'", *f);
            }
        }
        char problem[256] = "";
        w->call(entry, args, n, s, problem, sizeof problem);
        if (problem[0])
            harness_note_problem(impl, problem);
        return;
    }
    proto_cmd *c = &w->batch;
    if (c->n_calls == PROTO_MAX_CALLS)
        send_batch(impl);
    c->magic = PROTO_MAGIC;
    c->op = PROTO_CALL;
    proto_call *call = &c->call[c->n_calls];
    memset(call, 0, sizeof *call);
    call->entry = entry;
    int n = 0;
    for (const char *f = fmt; *f; f++, n++) {
        if (n == PROTO_MAX_ARGS)
            fatal("harness_call: more than %d arguments", PROTO_MAX_ARGS);
        proto_arg *a = &call->arg[n];
        switch (*f) {
        case 'p': {
            void *p = va_arg(ap, void *);
            shared_buf *b = find_buf(p);
            if (!b)
                fatal("harness_call: argument %d is not a buffer the harness shares", n + 1);
            a->type = PROTO_ARG_PTR;
            a->buf = add_buf(c, impl, b, w->pending_fds, &w->n_pending_fds);
            a->offset = (uint64_t)((char *)p - b->base);
            break;
        }
        case 'i': a->type = PROTO_ARG_INT, a->v.i = va_arg(ap, int); break;
        case 'l': a->type = PROTO_ARG_INT, a->v.i = va_arg(ap, long long); break;
        case 'z': a->type = PROTO_ARG_INT, a->v.i = (int64_t)va_arg(ap, size_t); break;
        case 'f': a->type = PROTO_ARG_FLOAT, a->v.f = va_arg(ap, double); break;
        default: fatal("harness_call: bad format '%c'", *f);
        }
    }
    call->n_args = n;
    c->n_calls++;
    if (!W.in_batch)
        send_batch(impl);
}

void workers_batch_begin(void) { W.in_batch = 1; }

void workers_batch_end(void)
{
    W.in_batch = 0;
    for (int impl = 0; impl < MAX_IMPLS; impl++)
        send_batch(impl);
}

__global__ void harness_null_kernel(void) {}

/* The GPU runs one process's context at a time, in time slices: while a worker's context still
 * has work, a kernel of this process waits for its turn. So an empty kernel that comes back
 * as fast as on an idle GPU says nothing else is running. Its idle round trip is measured once
 * (the fastest of 20, before any worker runs). */
static double idle_probe_s(cudaStream_t s)
{
    static double idle = -1;
    if (idle < 0) {
        idle = 1.0;
        for (int i = 0; i < 20; i++) {
            const double t = wall_seconds();
            harness_null_kernel<<<1, 1, 0, s>>>();
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaStreamSynchronize(s));
            idle = fmin(idle, wall_seconds() - t);
        }
    }
    return idle;
}

static int gpu_busy_before; /* the GPU was busy before this sample's call began */

/* One empty kernel's round trip against the idle one: 1 if something else holds the GPU. */
static int gpu_busy(cudaStream_t s, double limit)
{
    const double t = wall_seconds();
    harness_null_kernel<<<1, 1, 0, s>>>();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(s));
    return wall_seconds() - t > limit;
}

static double idle_limit_s(cudaStream_t s) { return fmax(5 * idle_probe_s(s), 50e-6); }

int workers_note_gpu_state(cudaStream_t s)
{
    gpu_busy_before = !W.inprocess && gpu_busy(s, idle_limit_s(s)) && gpu_busy(s, idle_limit_s(s));
    return gpu_busy_before;
}

double workers_wait_idle(int impl, cudaStream_t s)
{
    if (W.inprocess)
        return 0;
    const double limit = idle_limit_s(s);
    const double start = wall_seconds();
    for (int probes = 0;; probes++) {
        const double probe = wall_seconds();
        if (!gpu_busy(s, limit))
            return probes ? probe - start : 0;
        if (wall_seconds() - start > WORKERS_IDLE_LIMIT_S) {
            if (impl == IMPL_STUDENT && !gpu_busy_before)
                fail_check(impl, WORKER_FAIL_HANG,
                           "work of your call was still running on the GPU %.0f s after your "
                           "function returned (a kernel that never ends?)", WORKERS_IDLE_LIMIT_S);
            return wall_seconds() - start; /* another program's: billed, nobody is blamed */
        }
    }
}

void workers_null_call(int impl, cudaStream_t s)
{
    if (W.inprocess) {
        harness_null_kernel<<<1, 1, 0, s>>>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
    static proto_cmd c;
    memset(&c, 0, sizeof c);
    c.magic = PROTO_MAGIC;
    c.op = PROTO_NULL;
    proto_reply r;
    exchange(impl, &c, NULL, 0, &r);
}
