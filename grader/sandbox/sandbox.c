/* sandbox.c - TRUSTED: the one sandbox of untrusted processes (the student's compile, the
 * workers): which kind this machine allows, and entering it between fork and exec; and the
 * harness's own view. See sandbox.h for the policy and the three kinds; each piece of the policy
 * has a file of its own, and this one is the top of them (pieces.h). */
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
            sandbox_enter_namespaces(&p, 65534, 1);
        else
            sandbox_enter_landlock(&p, 65534, 1);
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
     * with the trusted process that started it instead (grader/wire/stop.h, rule 3). */
    const pid_t parent = getppid();
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(121);
    const uid_t uid = getuid() != 0 ? getuid() : p->uid ? p->uid : sandbox_uid();
    if (k == SANDBOX_NAMESPACES && sandbox_enter_namespaces(p, uid, 0) != 0)
        sandbox_die(p, "cannot make its namespaces");
    if (k == SANDBOX_LANDLOCK && sandbox_enter_landlock(p, uid, 0) != 0)
        sandbox_die(p, "cannot restrict its files (Landlock)");
    if (k == SANDBOX_NONE) {
        sandbox_become_unprivileged(p, uid);
        sandbox_drop_privileges(p);
        sandbox_apply_limits(p, getuid() != 0 ? sandbox_tasks_of_uid(getuid()) : 0);
        if (chdir(p->cwd ? p->cwd : p->scratch ? p->scratch : "/tmp") != 0)
            sandbox_die(p, "cannot enter %s", p->cwd ? p->cwd : p->scratch);
    }
}

/* The harness's own view (sandbox.h): a mount namespace of its own with a private /dev/shm. */
#define HARNESS_DEV_SHM_OPTIONS "size=64m,mode=1777"

void sandbox_harness_view(int emulated)
{
    if (!emulated)
        return;
    if (sandbox_own_mount_namespace() != 0 ||
        mount("grader-emu-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
              HARNESS_DEV_SHM_OPTIONS) != 0)
        fprintf(stderr, "harness: no /dev/shm of its own (%s): what is written there is "
                "visible to other programs of this user\n", strerror(errno));
}
