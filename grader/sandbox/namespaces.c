/* namespaces.c - TRUSTED: the namespaces sandbox (user, mount, pid, IPC, network, UTS) with a
 * fresh read-only root holding only what the policy shows, and a pid 1 that reaps its orphans. */
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
int sandbox_own_mount_namespace(void)
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
            sandbox_die(p, "cannot make %s", full);
        *s = '/';
    }
    if (file) {
        const int fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            sandbox_die(p, "cannot make %s", full);
        close(fd);
    } else if (mkdir(full, 0755) != 0 && errno != EEXIST) {
        sandbox_die(p, "cannot make %s", full);
    }
}

/* Bind host path `path` (opened before as `fd`, O_PATH) at the same path in `root`. */
static void bind_in(const sandbox_policy *p, const char *root, const char *path, int fd,
                    int writable)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        sandbox_die(p, "cannot look at %s", path);
    make_point(p, root, path, !S_ISDIR(st.st_mode));
    char from[64], to[4096];
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    snprintf(to, sizeof to, "%s%s", root, path);
    if (mount(from, to, NULL, MS_BIND | MS_REC, NULL) != 0)
        sandbox_die(p, "cannot show %s", path);
    if (!writable && remount_readonly(to) != 0)
        sandbox_die(p, "cannot make %s read-only", path);
}

static void mount_tmpfs(const sandbox_policy *p, const char *where, long long bytes, const char *mode)
{
    char opts[96];
    snprintf(opts, sizeof opts, "size=%lld,mode=%s", bytes > 0 ? bytes : 1 << 20, mode);
    if (mount("sandbox", where, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        sandbox_die(p, "cannot mount a private %s", where);
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
        if (sandbox_path_under(path, p->hidden[h]))
            return 1;
    return 0;
}

/* Binds: shorter paths first, so that /usr/local/cuda lands inside /usr and not under it. */
static int by_length(const void *a, const void *b)
{
    return (int)strlen(((const opened *)a)->path) - (int)strlen(((const opened *)b)->path);
}

/* The device nodes the root shows, opened (O_PATH) into src from n on: the harmless ones, and
 * the GPU's for a worker. Returns the new count. */
static int open_devices(const sandbox_policy *p, opened *src, int n)
{
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                       "/dev/urandom"};
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
    return n;
}

/* The policy's folders and files (src[0..n)) bound into root, and its hidden folders covered.
 * Shorter paths first; what a hidden folder holds after the folder is hidden, so that a path
 * the policy names always shows, and nothing else of a hidden folder does. */
static void bind_shown(const sandbox_policy *p, const char *root, opened *src, int n)
{
    char path[4096];
    qsort(src, (size_t)n, sizeof src[0], by_length);
    for (int i = 0; i < n; i++)
        if (!inside_hidden(p, src[i].path))
            bind_in(p, root, src[i].path, src[i].fd, src[i].writable);
    for (int h = 0; h < p->n_hidden; h++) {
        snprintf(path, sizeof path, "%s%s", root, p->hidden[h]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
            mount("hidden", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
            sandbox_die(p, "cannot hide %s", p->hidden[h]);
    }
    for (int i = 0; i < n; i++)
        if (inside_hidden(p, src[i].path))
            bind_in(p, root, src[i].path, src[i].fd, src[i].writable);
    for (int h = 0; h < p->n_hidden; h++) {
        snprintf(path, sizeof path, "%s%s", root, p->hidden[h]);
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0 &&
            errno != EINVAL && errno != ENOENT)
            sandbox_die(p, "cannot make %s read-only", p->hidden[h]);
    }
}

/* The root's /dev: a tmpfs with the device nodes (devs[0..n)) bound in (they keep the host's
 * permissions), the links to this process's descriptors, and a /dev/shm of its own. */
static void make_dev(const sandbox_policy *p, const char *root, const opened *devs, int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dev", root);
    make_point(p, root, "/dev", 0);
    mount_tmpfs(p, path, 1 << 20, "0755");
    for (int i = 0; i < n; i++)
        bind_in(p, root, devs[i].path, devs[i].fd, 1);
    static const char *const links[][2] = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
                                           {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, links[i][1]);
        if (symlink(links[i][0], path) != 0)
            sandbox_die(p, "cannot make /dev/%s", links[i][1]);
    }
    make_point(p, root, "/dev/shm", 0);
    snprintf(path, sizeof path, "%s/dev/shm", root);
    mount_tmpfs(p, path, p->shm_bytes > 0 ? p->shm_bytes : 1 << 20, "1777");
}

/* The root's /proc, and for a worker /sys (opened before as sys_fd, or -1) read-only. */
static void mount_proc_sys(const sandbox_policy *p, const char *root, int sys_fd)
{
    char path[4096];
    /* /proc of this pid namespace: this process tree and nothing else. hidepid=2 leaves out
     * the namespace's first process (this one: not dumpable, and the launcher's arguments in
     * its command line), which the sandboxed process may not inspect. */
    make_point(p, root, "/proc", 0);
    snprintf(path, sizeof path, "%s/proc", root);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0)
        sandbox_die(p, "cannot mount its own /proc");
    if (sys_fd >= 0) {
        make_point(p, root, "/sys", 0);
        snprintf(path, sizeof path, "%s/sys", root);
        char from[64];
        snprintf(from, sizeof from, "/proc/self/fd/%d", sys_fd);
        if (mount(from, path, NULL, MS_BIND | MS_REC, NULL) != 0 || remount_readonly(path) != 0)
            sandbox_die(p, "cannot show /sys read-only");
    }
}

/* In the new mount namespace: a fresh root on a tmpfs holding what the policy shows and nothing
 * else, entered (pivot_root) and made read-only. Every source is opened before anything is
 * mounted over it. */
static void build_root(const sandbox_policy *p)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        sandbox_die(p, "cannot make the mounts private");
    opened src[2 * SANDBOX_MAX_PATHS + 16];
    const int first_dev = open_sources(p, src, 2 * SANDBOX_MAX_PATHS);
    const int n = open_devices(p, src, first_dev);
    const int sys_fd = p->gpu ? open("/sys", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;

    /* The new root: a small tmpfs over /tmp of this namespace (every source is open already). */
    const char *root = "/tmp/.sandbox-root";
    mount_tmpfs(p, "/tmp", 4 << 20, "0755");
    if (mkdir(root, 0755) != 0)
        sandbox_die(p, "cannot make the new root");
    mount_tmpfs(p, root, 4 << 20, "0755");
    /* its private /tmp first: a folder of the policy under the host's /tmp is bound inside */
    char path[4096];
    make_point(p, root, "/tmp", 0);
    snprintf(path, sizeof path, "%s/tmp", root);
    mount_tmpfs(p, path, p->tmp_bytes, "1777");
    bind_shown(p, root, src, first_dev);
    make_dev(p, root, src + first_dev, n - first_dev);
    mount_proc_sys(p, root, sys_fd);
    for (int i = 0; i < n; i++)
        close(src[i].fd);
    if (sys_fd >= 0)
        close(sys_fd);
    /* Into it, and the old root gone (pivot_root onto itself, then detach the old one). */
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        sandbox_die(p, "cannot enter the new root");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        sandbox_die(p, "cannot make the new root read-only");
    if (chdir(p->cwd ? p->cwd : "/tmp") != 0)
        sandbox_die(p, "cannot enter %s", p->cwd ? p->cwd : "/tmp");
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


int sandbox_enter_namespaces(const sandbox_policy *p, uid_t uid, int probe_only)
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
    const long tasks_before = real_uid != 0 ? sandbox_tasks_of_uid(real_uid) : 0;
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
        sandbox_die(p, "cannot start the sandboxed process");
    if (child > 0)
        init_reaper(child, sp[1]);
    close(sp[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 1)
        _exit(121); /* the namespace's init ended already */
    sandbox_become_unprivileged(p, uid);
    sandbox_drop_privileges(p);
    sandbox_apply_limits(p, tasks_before);
    if (p->no_proc)
        sandbox_close_proc(p);
    return 0;
}
