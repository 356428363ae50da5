/* limits.c - TRUSTED: the sandboxed process's uid, privileges and resource limits (every kind of
 * sandbox applies them last, just before the process is left to itself). */
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
/* Limits                                                                                      */

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
long sandbox_tasks_of_uid(uid_t uid)
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
void sandbox_become_unprivileged(const sandbox_policy *p, uid_t uid)
{
    if (getuid() != 0 && geteuid() != 0)
        return;
    if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
        sandbox_die(p, "cannot take the unprivileged uid %u", (unsigned)uid);
}

/* Every capability gone, now and after exec, and no way to gain one back. */
void sandbox_drop_privileges(const sandbox_policy *p)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM)
            sandbox_die(p, "cannot drop capability %d", cap);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        sandbox_die(p, "cannot forbid new privileges");
}

void sandbox_apply_limits(const sandbox_policy *p, long tasks_before)
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
