/* landlock.c - TRUSTED: the Landlock sandbox, where namespaces are refused (rules that allow
 * what the policy shows, and nothing else), and the closing of /proc in the namespaces' root. */
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
        sandbox_die(p, "cannot look at %s", path);
    if (S_ISLNK(st.st_mode)) {
        close(fd);
        return;
    }
    if (!S_ISDIR(st.st_mode))
        rights &= LL_FILE_RIGHTS;
    struct ll_path_beneath pb = {rights & handled, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
        sandbox_die(p, "cannot allow %s", path);
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
        if (!strcmp(hid, top) || !sandbox_path_under(hid, top))
            continue;
        if (below ? strcmp(hid, path) && sandbox_path_under(hid, path) : sandbox_path_under(path, hid))
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
void sandbox_close_proc(const sandbox_policy *p)
{
    const long abi = landlock_abi();
    if (abi < 1)
        return;
    const uint64_t fs = ll_fs_rights(abi);
    struct ll_ruleset_attr attr = {fs, 0, 0};
    const int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(uint64_t), 0);
    if (rs < 0)
        sandbox_die(p, "cannot close its /proc (Landlock)");
    DIR *d = opendir("/");
    if (!d)
        sandbox_die(p, "cannot list its root");
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
        sandbox_die(p, "cannot close its /proc (Landlock)");
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

int sandbox_enter_landlock(const sandbox_policy *p, uid_t uid, int probe_only)
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
    const long tasks_before = getuid() != 0 ? sandbox_tasks_of_uid(getuid()) : 0;
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
    sandbox_become_unprivileged(p, uid);
    sandbox_drop_privileges(p);
    sandbox_apply_limits(p, tasks_before);
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        sandbox_die(p, "cannot restrict its files (Landlock)");
    close(rs);
    if (chdir(p->cwd ? p->cwd : p->scratch ? p->scratch : "/") != 0)
        sandbox_die(p, "cannot enter %s", p->cwd ? p->cwd : p->scratch);
    return 0;
}
