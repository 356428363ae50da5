/* emu_harness.c - TRUSTED, NO GPU: the lab's emulated harness as a process of the driver (see
 * emu_harness.h). */
#include "emu_harness.h"
#include "../wire/child.h"
#include "../wire/stop.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Run argv (no shell) with stdin from in_path (NULL: /dev/null), stdout and stderr to out_path
 * and err_path (truncated; err_path appended to when `append_err`), `env` (NAME=value strings, NULL-ended)
 * added; emulated: in the harness's view of its own (sandbox_harness_view), with a TMPDIR of
 * its own that this process removes when it ends (its workers' scratch folders lie there where
 * namespaces are refused, and a harness killed cannot remove them: as harness_start's). Waits
 * at most `left` seconds, then kills it whole. Returns its wait status, -1 if it could not be
 * started, -2 if it ran out of time. */
int run_counted(char *const argv[], char *const env[], const char *in_path,
                       const char *out_path, const char *err_path, int append_err, int emulated,
                       double left)
{
    const double start = wall_seconds();
    char tmp[PATH_MAX] = "";
    if (emulated)
        scratch_make(tmp, sizeof tmp, "grader-run");
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = stop_fork(SIGKILL); /* its own group: killed whole on a stop or a timeout */
    if (pid < 0) {
        scratch_remove(tmp);
        return -1;
    }
    if (pid == 0) {
        if (tmp[0])
            setenv("TMPDIR", tmp, 1);
        const int in = open(in_path ? in_path : "/dev/null", O_RDONLY | O_CLOEXEC),
                  out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
                  err = open(err_path, O_WRONLY | O_CREAT | O_CLOEXEC | (append_err ? O_APPEND : O_TRUNC), 0644);
        if (in < 0 || out < 0 || err < 0)
            _exit(127);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        for (int i = 0; env && env[i]; i++)
            putenv(env[i]);
        if (emulated)
            sandbox_harness_view(1);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    /* (no sweep: the lab's harness is still running; the sandbox ends its own) */
    const int done = child_wait_or_kill(pid, start, left, &status) == 1;
    scratch_remove(tmp); /* its workers died with it (PDEATHSIG): nothing writes there any more */
    return done ? status : -2;
}

/* The environment of the lab's emulated harness (the WHERE count, a fault's rerun) into env
 * (NULL-ended, its strings in asan and sms_env): its address sanitizer held to WHERE_MEM_MIB
 * and, on a GPU, the emulated device given this GPU's SM count, so that grids sized by it, and
 * their waves, are this GPU's (make explain's CUDA_EMU_SMS). */
void emu_env(const emu_build *o, const record *dev, char asan[256], char sms_env[32],
                    char *env[3])
{
    const char *prior = getenv("ASAN_OPTIONS");
    snprintf(asan, 256, "ASAN_OPTIONS=%s%shard_rss_limit_mb=%d:detect_leaks=0",
             prior ? prior : "", prior && *prior ? ":" : "", WHERE_MEM_MIB);
    sms_env[0] = 0;
    double sms = 0; /* the harness's greeting's, a number */
    if (record_get_num(dev, "sms", &sms) == 0 && sms >= 1 && sms < 1e6 && strcmp(o->mode, "emu"))
        snprintf(sms_env, 32, "CUDA_EMU_SMS=%d", (int)sms);
    env[0] = asan, env[1] = sms_env[0] ? sms_env : NULL, env[2] = NULL;
}

/* What the emulated build's workers never see: grading's places, with the emulated build's
 * folders in place of the graded build's. */
sandbox_places emu_places(const emu_build *o)
{
    sandbox_places places = o->hidden;
    places.labdir = o->labdir;
    places.student_objs = o->student_objs;
    return places;
}
