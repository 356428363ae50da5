/* sandbox.c - TRUSTED: the one sandbox of untrusted processes (the student's compile, the
 * workers). See sandbox.h for the policy and the three kinds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sandbox.h"

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

/* Landlock rights and fields newer than some systems' headers (the kernel says which it has). */
#define LL_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};
struct ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define LL_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* Rights that make sense on a file (not a folder). */
#define LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                        LANDLOCK_ACCESS_FS_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

/* ------------------------------------------------------------------------------------------ */
/* Failing: one line on stderr, exit 121 (the caller names the sandbox in its message)        */

static void die(const sandbox_policy *p, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(const sandbox_policy *p, const char *fmt, ...)
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

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

static void set_limit(int what, long long value)
{
    if (value <= 0)
        return;
    struct rlimit r = {(rlim_t)value, (rlim_t)value};
    struct rlimit now;
    if (getrlimit(what, &now) == 0 && now.rlim_max != RLIM_INFINITY && now.rlim_max < r.rlim_max)
        r.rlim_cur = r.rlim_max = now.rlim_max; /* never above what we were given */
    setrlimit(what, &r);
}

/* Processes and threads this uid has now (an ordinary user's own count toward RLIMIT_NPROC). */
static long tasks_of_uid(uid_t uid)
{
    long n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != uid)
            continue;
        n += (long)st.st_nlink > 2 ? (long)st.st_nlink - 2 : 1;
    }
    closedir(d);
    return n;
}

static int path_under(const char *path, const char *dir)
{
    const size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0 || (n == 1 && dir[0] == '/'));
}

/* ------------------------------------------------------------------------------------------ */
/* Which uid                                                                                   */

/* Is `uid` mapped in this process's user namespace (a container may map only a range)? */
static int uid_mapped(uid_t uid)
{
    FILE *f = fopen("/proc/self/uid_map", "re");
    if (!f)
        return uid == 65534;
    unsigned long inside, outside, count;
    int ok = 0;
    while (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
        if (uid >= inside && uid - inside < count)
            ok = 1;
    fclose(f);
    return ok;
}

uid_t sandbox_uid(void)
{
    /* 1,600,000,000 and up: far above any login or system account */
    static unsigned serial;
    const uid_t uid = (uid_t)(1600000000u + ((unsigned)getpid() * 16u + serial++ % 16u) % 100000000u);
    return uid_mapped(uid) ? uid : 65534;
}

/* Leave root: the policy's unprivileged uid and gid, no supplementary groups. */
static void become_unprivileged(const sandbox_policy *p, uid_t uid)
{
    if (getuid() != 0 && geteuid() != 0)
        return;
    if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
        die(p, "cannot take the unprivileged uid %u", (unsigned)uid);
}

/* Every capability gone, now and after exec, and no way to gain one back. */
static void drop_privileges(const sandbox_policy *p)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM)
            die(p, "cannot drop capability %d", cap);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die(p, "cannot forbid new privileges");
}

static void apply_limits(const sandbox_policy *p, long tasks_before)
{
    const struct rlimit no_core = {0, 0}; /* no core file of untrusted memory, anywhere */
    setrlimit(RLIMIT_CORE, &no_core);
    set_limit(RLIMIT_AS, p->as_bytes);
    set_limit(RLIMIT_FSIZE, p->fsize_bytes);
    set_limit(RLIMIT_CPU, p->cpu_seconds);
    set_limit(RLIMIT_NOFILE, p->open_files);
    if (p->tasks > 0)
        set_limit(RLIMIT_NPROC, p->tasks + tasks_before);
}

/* ------------------------------------------------------------------------------------------ */
/* Namespaces: a fresh root                                                                    */

/* Writes TEXT to the file at PATH (a /proc setting): 0, or -1. */
static int write_setting(const char *path, const char *text)
{
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Just after unshare(CLONE_NEWUSER): map this process's uid and gid to themselves inside the
 * new user namespace (and deny setgroups, which an unprivileged map needs). 0, or -1. */
static int map_own_ids(void)
{
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    char map[64];
    write_setting("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%d %d 1", (int)uid, (int)uid);
    if (write_setting("/proc/self/uid_map", map) != 0)
        return -1;
    snprintf(map, sizeof map, "%d %d 1", (int)gid, (int)gid);
    return write_setting("/proc/self/gid_map", map);
}

/* Puts this process in a mount namespace of its own, every mount private to it (for an
 * ordinary user, inside a user namespace that maps its uid and gid to themselves, which
 * creating one needs). 0, or -1 with errno. */
static int enter_own_mount_namespace(void)
{
    if (getuid() == 0) {
        if (unshare(CLONE_NEWNS) != 0)
            return -1;
    } else if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || map_own_ids() != 0) {
        return -1;
    }
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Remount `mp` read-only, keeping the flags a user namespace may not drop. */
static int remount_readonly(const char *mp)
{
    struct statvfs sv;
    if (statvfs(mp, &sv) != 0)
        return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID;
    if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return mount(NULL, mp, NULL, flags, NULL);
}

/* Make `path` (inside the new root `root`) as a folder, or as an empty file when `file`. */
static void make_point(const sandbox_policy *p, const char *root, const char *path, int file)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", root, path);
    for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(full, 0755) != 0 && errno != EEXIST)
            die(p, "cannot make %s", full);
        *s = '/';
    }
    if (file) {
        const int fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            die(p, "cannot make %s", full);
        close(fd);
    } else if (mkdir(full, 0755) != 0 && errno != EEXIST) {
        die(p, "cannot make %s", full);
    }
}

/* Bind host path `path` (opened before as `fd`, O_PATH) at the same path in `root`. */
static void bind_in(const sandbox_policy *p, const char *root, const char *path, int fd,
                    int writable)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        die(p, "cannot look at %s", path);
    make_point(p, root, path, !S_ISDIR(st.st_mode));
    char from[64], to[4096];
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    snprintf(to, sizeof to, "%s%s", root, path);
    if (mount(from, to, NULL, MS_BIND | MS_REC, NULL) != 0)
        die(p, "cannot show %s", path);
    if (!writable && remount_readonly(to) != 0)
        die(p, "cannot make %s read-only", path);
}

static void mount_tmpfs(const sandbox_policy *p, const char *where, long long bytes, const char *mode)
{
    char opts[96];
    snprintf(opts, sizeof opts, "size=%lld,mode=%s", bytes > 0 ? bytes : 1 << 20, mode);
    if (mount("sandbox", where, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        die(p, "cannot mount a private %s", where);
}

typedef struct opened {
    const char *path;
    int fd;
    int writable;
} opened;

/* Folders and files the root shows, opened (O_PATH) before anything is mounted over. */
static int open_sources(const sandbox_policy *p, opened *o, int max)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const int count = pass ? p->n_writable : p->n_visible;
        for (int i = 0; i < count && n < max; i++) {
            const char *path = pass ? p->writable[i] : p->visible[i];
            const int fd = open(path, O_PATH | O_CLOEXEC);
            if (fd >= 0) /* else: not on this machine */
                o[n++] = (opened){path, fd, pass};
        }
    }
    return n;
}

static int inside_hidden(const sandbox_policy *p, const char *path)
{
    for (int h = 0; h < p->n_hidden; h++)
        if (path_under(path, p->hidden[h]))
            return 1;
    return 0;
}

/* Binds: shorter paths first, so that /usr/local/cuda lands inside /usr and not under it. */
static int by_length(const void *a, const void *b)
{
    return (int)strlen(((const opened *)a)->path) - (int)strlen(((const opened *)b)->path);
}

static void build_root(const sandbox_policy *p)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        die(p, "cannot make the mounts private");
    opened src[2 * SANDBOX_MAX_PATHS + 16];
    int n = open_sources(p, src, 2 * SANDBOX_MAX_PATHS);
    /* device nodes: the harmless ones, and the GPU's for a worker */
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                       "/dev/urandom"};
    const int first_dev = n;
    for (size_t i = 0; i < (p->null_only ? 1 : sizeof devs / sizeof devs[0]); i++) {
        const int fd = open(devs[i], O_PATH | O_CLOEXEC);
        if (fd >= 0)
            src[n++] = (opened){devs[i], fd, 1};
    }
    static char gpu_nodes[16][300];
    int n_gpu = 0;
    if (p->gpu) {
        DIR *d = opendir("/dev");
        struct dirent *e;
        while (d && (e = readdir(d)) && n_gpu < 16) {
            if (strncmp(e->d_name, "nvidia", 6) || e->d_type == DT_DIR)
                continue;
            snprintf(gpu_nodes[n_gpu], sizeof gpu_nodes[n_gpu], "/dev/%s", e->d_name);
            const int fd = open(gpu_nodes[n_gpu], O_PATH | O_CLOEXEC);
            if (fd >= 0)
                src[n++] = (opened){gpu_nodes[n_gpu++], fd, 1};
        }
        if (d)
            closedir(d);
    }
    const int sys_fd = p->gpu ? open("/sys", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;

    /* The new root: a small tmpfs over /tmp of this namespace (every source is open already). */
    const char *root = "/tmp/.sandbox-root";
    mount_tmpfs(p, "/tmp", 4 << 20, "0755");
    if (mkdir(root, 0755) != 0)
        die(p, "cannot make the new root");
    mount_tmpfs(p, root, 4 << 20, "0755");
    /* its private /tmp first: a folder of the policy under the host's /tmp is bound inside */
    char path[4096];
    make_point(p, root, "/tmp", 0);
    snprintf(path, sizeof path, "%s/tmp", root);
    mount_tmpfs(p, path, p->tmp_bytes, "1777");
    /* Shorter paths first; what a hidden folder holds after the folder is hidden, so that a
     * path the policy names always shows, and nothing else of a hidden folder does. */
    qsort(src, (size_t)first_dev, sizeof src[0], by_length);
    for (int i = 0; i < first_dev; i++)
        if (!inside_hidden(p, src[i].path))
            bind_in(p, root, src[i].path, src[i].fd, src[i].writable);
    for (int h = 0; h < p->n_hidden; h++) {
        snprintf(path, sizeof path, "%s%s", root, p->hidden[h]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
            mount("hidden", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
            die(p, "cannot hide %s", p->hidden[h]);
    }
    for (int i = 0; i < first_dev; i++)
        if (inside_hidden(p, src[i].path))
            bind_in(p, root, src[i].path, src[i].fd, src[i].writable);
    for (int h = 0; h < p->n_hidden; h++) {
        snprintf(path, sizeof path, "%s%s", root, p->hidden[h]);
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0 &&
            errno != EINVAL && errno != ENOENT)
            die(p, "cannot make %s read-only", p->hidden[h]);
    }
    /* /dev: a tmpfs with the nodes bound in (they keep the host's permissions) */
    snprintf(path, sizeof path, "%s/dev", root);
    make_point(p, root, "/dev", 0);
    mount_tmpfs(p, path, 1 << 20, "0755");
    for (int i = first_dev; i < n; i++)
        bind_in(p, root, src[i].path, src[i].fd, 1);
    static const char *const links[][2] = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
                                           {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, links[i][1]);
        if (symlink(links[i][0], path) != 0)
            die(p, "cannot make /dev/%s", links[i][1]);
    }
    make_point(p, root, "/dev/shm", 0);
    snprintf(path, sizeof path, "%s/dev/shm", root);
    mount_tmpfs(p, path, p->shm_bytes > 0 ? p->shm_bytes : 1 << 20, "1777");
    /* /proc of this pid namespace: this process tree and nothing else. hidepid=2 leaves out
     * the namespace's first process (this one: not dumpable, and the launcher's arguments in
     * its command line), which the sandboxed process may not inspect. */
    make_point(p, root, "/proc", 0);
    snprintf(path, sizeof path, "%s/proc", root);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0)
        die(p, "cannot mount its own /proc");
    if (sys_fd >= 0) {
        make_point(p, root, "/sys", 0);
        snprintf(path, sizeof path, "%s/sys", root);
        char from[64];
        snprintf(from, sizeof from, "/proc/self/fd/%d", sys_fd);
        if (mount(from, path, NULL, MS_BIND | MS_REC, NULL) != 0 || remount_readonly(path) != 0)
            die(p, "cannot show /sys read-only");
    }
    for (int i = 0; i < n; i++)
        close(src[i].fd);
    if (sys_fd >= 0)
        close(sys_fd);
    /* Into it, and the old root gone (pivot_root onto itself, then detach the old one). */
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        die(p, "cannot enter the new root");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        die(p, "cannot make the new root read-only");
    if (chdir(p->cwd ? p->cwd : "/tmp") != 0)
        die(p, "cannot enter %s", p->cwd ? p->cwd : "/tmp");
}

/* The process outside the namespaces: wait for the sandboxed one and end as it ended. */
static void __attribute__((noreturn)) mirror(pid_t init, int status_fd)
{
    int status = 0, got = 0;
    while (got < (int)sizeof status) {
        const ssize_t r = read(status_fd, (char *)&status + got, sizeof status - (size_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (int)r;
    }
    int init_status = 0;
    while (waitpid(init, &init_status, 0) < 0 && errno == EINTR)
        ;
    if (got != (int)sizeof status)
        status = init_status; /* the init itself ended first: report that */
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    kill(getpid(), sig);
    _exit(128 + sig);
}

/* pid 1 of the namespace: reap every orphan; when the sandboxed process ends, pass its status
 * out and end (which ends every process left in the namespace). */
static void __attribute__((noreturn)) init_reaper(pid_t child, int status_fd)
{
    for (;;) {
        int status;
        const pid_t r = waitpid(-1, &status, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == child || r < 0) {
            if (r == child && write(status_fd, &status, sizeof status) < 0) { /* nothing to do */
            }
            _exit(0);
        }
    }
}

static void close_proc(const sandbox_policy *p);

static int enter_namespaces(const sandbox_policy *p, uid_t uid, int probe_only)
{
    const uid_t real_uid = getuid();
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS;
    if (real_uid != 0)
        flags |= CLONE_NEWUSER;
    if (unshare(flags) != 0 || (real_uid != 0 && map_own_ids() != 0))
        return -1;
    int sp[2];
    if (pipe2(sp, O_CLOEXEC) != 0)
        return -1;
    const long tasks_before = real_uid != 0 ? tasks_of_uid(real_uid) : 0;
    fflush(NULL);
    const pid_t init = fork();
    if (init < 0)
        return -1;
    if (init > 0) {
        close(sp[1]);
        mirror(init, sp[0]);
    }
    /* pid 1 of the new namespace; not dumpable, so that no process it holds can read its
     * memory or environment (/proc/1/environ) */
    close(sp[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* (its parent is outside the namespace: getppid() is 0
                                         here whether or not it lives; the status pipe tells) */
    prctl(PR_SET_DUMPABLE, 0);
    build_root(p);
    if (probe_only)
        _exit(0);
    const pid_t child = fork();
    if (child < 0)
        die(p, "cannot start the sandboxed process");
    if (child > 0)
        init_reaper(child, sp[1]);
    close(sp[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 1)
        _exit(121); /* the namespace's init ended already */
    become_unprivileged(p, uid);
    drop_privileges(p);
    apply_limits(p, tasks_before);
    if (p->no_proc)
        close_proc(p);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Landlock: no namespaces                                                                     */

static long landlock_abi(void)
{
    const long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : abi;
}

/* The filesystem rights this kernel's Landlock handles (ABI 1 to 5). */
static uint64_t ll_fs_rights(long abi)
{
    uint64_t fs = (1ULL << 13) - 1; /* the 13 rights of ABI 1 */
    if (abi >= 2) fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) fs |= LL_TRUNCATE;
    if (abi >= 5) fs |= LL_IOCTL_DEV;
    return fs;
}

/* Allows what lies beneath the open file or folder `fd` (closed here); a link is given no
 * rule (what it points to is allowed or not where it lies). */
static void ll_rule_fd(const sandbox_policy *p, int ruleset, int fd, const char *path,
                       uint64_t rights, uint64_t handled)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        die(p, "cannot look at %s", path);
    if (S_ISLNK(st.st_mode)) {
        close(fd);
        return;
    }
    if (!S_ISDIR(st.st_mode))
        rights &= LL_FILE_RIGHTS;
    struct ll_path_beneath pb = {rights & handled, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
        die(p, "cannot allow %s", path);
    close(fd);
}

static void ll_rule(const sandbox_policy *p, int ruleset, const char *path, uint64_t rights,
                    uint64_t handled)
{
    const int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd >= 0) /* else: not on this machine */
        ll_rule_fd(p, ruleset, fd, path, rights, handled);
}

/* The hidden folders of `p` strictly below `top` (one that holds `top` does not count: what
 * the policy names inside a hidden folder stays visible). below=1: is one strictly below
 * `path`? below=0: is `path` one of them, or inside one? */
static int hidden_under(const sandbox_policy *p, const char *top, const char *path, int below)
{
    for (int h = 0; h < p->n_hidden; h++) {
        const char *hid = p->hidden[h];
        if (!strcmp(hid, top) || !path_under(hid, top))
            continue;
        if (below ? strcmp(hid, path) && path_under(hid, path) : path_under(path, hid))
            return 1;
    }
    return 0;
}

/* Allows the real folder `dir` (below the named path `top`) but the hidden folders below it.
 * Landlock only allows, so a folder that holds a hidden one is allowed entry by entry: each
 * entry that is not hidden and holds none whole, one that holds one in turn, never the
 * hidden one (the folder itself may then be walked through, not listed). Entries are taken
 * as they are now, links unfollowed. */
static void ll_rule_but_hidden(const sandbox_policy *p, int ruleset, const char *top,
                               const char *dir, uint64_t rights, uint64_t handled, int depth)
{
    if (!hidden_under(p, top, dir, 1) || depth > 64) {
        ll_rule(p, ruleset, dir, rights, handled);
        return;
    }
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char entry[PATH_MAX];
        if (snprintf(entry, sizeof entry, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >=
            (int)sizeof entry)
            continue;
        if (hidden_under(p, top, entry, 0))
            continue;
        struct stat st;
        if (hidden_under(p, top, entry, 1) && lstat(entry, &st) == 0 && S_ISDIR(st.st_mode)) {
            ll_rule_but_hidden(p, ruleset, top, entry, rights, handled, depth + 1);
            continue;
        }
        const int fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            ll_rule_fd(p, ruleset, fd, entry, rights, handled);
    }
    closedir(d);
}

/* A path the policy names: allowed whole (inside a hidden folder too: what the policy shows
 * there stays visible), but the hidden folders below it. */
static void ll_allow(const sandbox_policy *p, int ruleset, const char *path, uint64_t rights,
                     uint64_t handled)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return; /* not on this machine */
    ll_rule_but_hidden(p, ruleset, real, real, rights, handled, 0);
}

/* With namespaces, the root holds only what the policy shows, but its own /proc lists the
 * mount table (each bind's path on the host) and its processes' command lines and
 * environments. For a policy with no_proc, Landlock (where the kernel has it) allows every
 * entry of the new root but /proc, and of /proc only cpuinfo; mounts still say what is
 * read-only. Without Landlock, /proc stays as it is (header: SANDBOX_NAMESPACES). */
static void close_proc(const sandbox_policy *p)
{
    const long abi = landlock_abi();
    if (abi < 1)
        return;
    const uint64_t fs = ll_fs_rights(abi);
    struct ll_ruleset_attr attr = {fs, 0, 0};
    const int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(uint64_t), 0);
    if (rs < 0)
        die(p, "cannot close its /proc (Landlock)");
    DIR *d = opendir("/");
    if (!d)
        die(p, "cannot list its root");
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "proc"))
            continue;
        char entry[300];
        snprintf(entry, sizeof entry, "/%s", e->d_name);
        const int fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            ll_rule_fd(p, rs, fd, entry, fs, fs);
    }
    closedir(d);
    ll_rule(p, rs, "/proc/cpuinfo", LANDLOCK_ACCESS_FS_READ_FILE, fs);
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        die(p, "cannot close its /proc (Landlock)");
    close(rs);
}

/* Run as root without namespaces, the sandboxed process takes another uid and must still
 * reach its paths through their folders: each folder above a path of the policy that others
 * may not pass through (a 0700 home or temporary folder) is given search permission, o+x,
 * never reading. What it may open stays Landlock's to say. */
static void let_others_pass(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strrchr(dir, '/'); slash && slash > dir; slash = strrchr(dir, '/')) {
        *slash = 0;
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))
            chmod(dir, (st.st_mode & 07777) | S_IXOTH);
    }
}

static int enter_landlock(const sandbox_policy *p, uid_t uid, int probe_only)
{
    const long abi = landlock_abi();
    if (abi < 1)
        return -1;
    const uint64_t fs = ll_fs_rights(abi);
    struct ll_ruleset_attr attr = {fs, abi >= 4 ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0,
                                   abi >= 6 ? LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL : 0};
    const size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    const int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return -1;
    const long tasks_before = getuid() != 0 ? tasks_of_uid(getuid()) : 0;
    const uint64_t rw = fs, dev = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LL_IOCTL_DEV;
    for (int i = 0; i < p->n_visible; i++)
        ll_allow(p, rs, p->visible[i], LL_READ, fs);
    for (int i = 0; i < p->n_writable; i++)
        ll_allow(p, rs, p->writable[i], rw, fs);
    if (p->scratch)
        ll_rule(p, rs, p->scratch, rw, fs);
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
    for (size_t i = 0; i < (p->null_only ? 1 : sizeof devs / sizeof devs[0]); i++)
        ll_rule(p, rs, devs[i], LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE, fs);
    if (p->gpu) {
        DIR *d = opendir("/dev");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (strncmp(e->d_name, "nvidia", 6) || e->d_type == DT_DIR)
                continue;
            char node[300];
            snprintf(node, sizeof node, "/dev/%s", e->d_name);
            ll_rule(p, rs, node, dev, fs);
        }
        if (d)
            closedir(d);
        /* What the CUDA driver reads: its parameters, the machine's CPUs and memory, the
         * PCI topology, and this process's own /proc entries (no other process's). */
        static const char *const ro[] = {"/sys", "/proc/driver/nvidia", "/proc/cpuinfo",
                                         "/proc/meminfo", "/proc/devices", "/proc/sys/vm",
                                         "/proc/stat"};
        for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
            ll_rule(p, rs, ro[i], LL_READ, fs);
    }
    if (p->no_proc) {
        /* (emu-nvcc reads the CPU's features there; the rest of /proc stays closed) */
        ll_rule(p, rs, "/proc/cpuinfo", LANDLOCK_ACCESS_FS_READ_FILE, fs);
    } else {
        char self[64];
        snprintf(self, sizeof self, "/proc/%d", (int)getpid());
        /* (writable: the CUDA driver names its threads through /proc/self/task/N/comm, opened
         * with O_TRUNC, and fails with cudaErrorOperatingSystem when it may not) */
        ll_rule(p, rs, self, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                                 LANDLOCK_ACCESS_FS_WRITE_FILE | LL_TRUNCATE, fs);
    }
    if (probe_only)
        _exit(0);
    if (getuid() == 0 || geteuid() == 0) {
        for (int i = 0; i < p->n_visible; i++)
            let_others_pass(p->visible[i]);
        for (int i = 0; i < p->n_writable; i++)
            let_others_pass(p->writable[i]);
        if (p->scratch)
            let_others_pass(p->scratch);
    }
    become_unprivileged(p, uid);
    drop_privileges(p);
    apply_limits(p, tasks_before);
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        die(p, "cannot restrict its files (Landlock)");
    close(rs);
    if (chdir(p->cwd ? p->cwd : p->scratch ? p->scratch : "/") != 0)
        die(p, "cannot enter %s", p->cwd ? p->cwd : p->scratch);
    return 0;
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

#define HARNESS_DEV_SHM_OPTIONS "size=64m,mode=1777"

void sandbox_harness_view(int emulated)
{
    if (!emulated)
        return;
    if (enter_own_mount_namespace() != 0 ||
        mount("grader-emu-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
              HARNESS_DEV_SHM_OPTIONS) != 0)
        fprintf(stderr, "harness: no /dev/shm of its own (%s): what is written there is "
                "visible to other programs of this user\n", strerror(errno));
}

/* ------------------------------------------------------------------------------------------ */
/* Choosing and entering                                                                       */

static sandbox_kind probe(sandbox_kind k)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return SANDBOX_NONE;
    if (pid == 0) {
        const int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 2);
        sandbox_policy p = {.what = "probe", .tmp_bytes = 1 << 20};
        sandbox_add_system(&p, NULL);
        if (k == SANDBOX_NAMESPACES)
            enter_namespaces(&p, 65534, 1);
        else
            enter_landlock(&p, 65534, 1);
        _exit(1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? k : SANDBOX_NONE;
}

sandbox_kind sandbox_available(void)
{
    static int known = -1;
    if (known >= 0)
        return (sandbox_kind)known;
    const char *want = getenv("GRADER_SANDBOX");
    sandbox_kind best = SANDBOX_NAMESPACES;
    if (want && !strcmp(want, "landlock"))
        best = SANDBOX_LANDLOCK;
    else if (want && !strcmp(want, "none"))
        best = SANDBOX_NONE;
    sandbox_kind k = SANDBOX_NONE;
    if (best >= SANDBOX_NAMESPACES)
        k = probe(SANDBOX_NAMESPACES);
    if (k == SANDBOX_NONE && best >= SANDBOX_LANDLOCK)
        k = probe(SANDBOX_LANDLOCK);
    known = (int)k;
    return k;
}

const char *sandbox_kind_name(sandbox_kind k)
{
    switch (k) {
    case SANDBOX_NAMESPACES: return "namespaces";
    case SANDBOX_LANDLOCK: return "landlock";
    default: return "none";
    }
}

const char *sandbox_tmp(const sandbox_policy *p)
{
    return sandbox_available() == SANDBOX_NAMESPACES || !p->scratch ? "/tmp" : p->scratch;
}

void sandbox_enter(const sandbox_policy *p)
{
    const sandbox_kind k = sandbox_available();
    /* No controlling terminal to type into. Out of its parent's process group now, it dies
     * with the trusted process that started it instead (grader/run/stop.h, rule 3). */
    const pid_t parent = getppid();
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(121);
    const uid_t uid = getuid() != 0 ? getuid() : p->uid ? p->uid : sandbox_uid();
    if (k == SANDBOX_NAMESPACES && enter_namespaces(p, uid, 0) != 0)
        die(p, "cannot make its namespaces");
    if (k == SANDBOX_LANDLOCK && enter_landlock(p, uid, 0) != 0)
        die(p, "cannot restrict its files (Landlock)");
    if (k == SANDBOX_NONE) {
        become_unprivileged(p, uid);
        drop_privileges(p);
        apply_limits(p, getuid() != 0 ? tasks_of_uid(getuid()) : 0);
        if (chdir(p->cwd ? p->cwd : p->scratch ? p->scratch : "/tmp") != 0)
            die(p, "cannot enter %s", p->cwd ? p->cwd : p->scratch);
    }
}
