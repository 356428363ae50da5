/* schedule.c - TRUSTED, NO GPU: the next lab's harness started ahead, and the host-link lock
 * (see schedule.h). */
#include "schedule.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

/* The next lab's harness, started while a lab is graded so that its start (its process, its
 * GPU context, its student's process, which holds no student code before its first call)
 * costs no lab any time: it says "ready" once all of that is done, and no speed check begins
 * before it has (ahead_wait), so nothing of its start runs beside a timed call. */
typedef struct ahead_harness {
    const lab_info *lab; /* its lab; NULL: none */
    harness_proc h;
    greeting g;          /* its greeting, as read while waiting for "ready" */
    int ready;           /* its "ready" line read */
} ahead_harness;
static ahead_harness ahead;

#define AHEAD_WAIT_S 60.0 /* a harness not ready after this long is broken: its lab starts its own */

/* Stop the harness started ahead (not ready in time, or not needed). */
void ahead_drop(void)
{
    if (ahead.h.pid > 0)
        harness_stop(&ahead.h, NULL);
    memset(&ahead, 0, sizeof ahead);
}

/* Start the harness of `lab`, the next to be graded, while this one is: only for a lab whose
 * build is whole (any other has no check to run). */
void ahead_start(const options *o, const lab_info *lab, lab_build build)
{
    ahead_drop();
    const char *off = getenv("GRADER_AHEAD"); /* =0: each lab starts its own (an A/B switch) */
    if (!lab || build != LAB_BUILT || grading_stopped() || (off && !strcmp(off, "0")))
        return;
    if (harness_start(o, lab, &ahead.h, 1) == 0)
        ahead.lab = lab;
    else
        memset(&ahead, 0, sizeof ahead);
}

/* Before a speed check: the harness started ahead has said "ready" (its greeting read on the
 * way), so that nothing of its start runs beside a timed call; or it is stopped, and its lab
 * starts its own as any harness starts. */
void ahead_wait(const options *o)
{
    char buf[RECORD_MAX_LINE];
    size_t got = 0;
    const double start = wall_seconds();
    while (ahead.h.pid > 0 && !ahead.ready) {
        const double left = AHEAD_WAIT_S - (wall_seconds() - start);
        struct pollfd pf = {ahead.h.reply, POLLIN, 0};
        const int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR && !grading_stopped())
            continue;
        /* (nothing follows "ready" before a command: nothing read is lost) */
        const int ready =
            r > 0 ? harness_read_reply(o, &ahead.h, &ahead.g, buf, sizeof buf, &got, "ready", 0)
                  : -1;
        if (ready < 0) { /* not ready in time, or it ended */
            ahead_drop();
            return;
        }
        ahead.ready = ready;
    }
}


/* The harness started ahead for `lab`, if there is one and it still runs: moved into h and g
 * (its greeting so far), and 1; else 0 (one that ended on its own is stopped: the lab starts
 * its own). */
int ahead_take(const lab_info *lab, harness_proc *h, greeting *g)
{
    if (ahead.lab == lab && ahead.h.pid > 0 && waitpid(ahead.h.pid, NULL, WNOHANG) != 0)
        ahead_drop(); /* it ended on its own (or was reaped): the lab starts its own */
    if (ahead.lab != lab || ahead.h.pid <= 0)
        return 0;
    *h = ahead.h; /* its harness, started during the lab before */
    *g = ahead.g;
    memset(&ahead, 0, sizeof ahead);
    return 1;
}

/* In a batch on a GPU host (grade-batch sets GRADE_HOST_LINK_LOCK, a file of its
 * output folder, which no student's code sees), a lab whose timed calls cross the host link to
 * the GPU (lab_info.host_link: lab 05) times its speed checks one GPU at a time: the GPUs share
 * that link and host memory, and lab 05 graded on two GPUs at once gave self-check ratios of
 * 0.976-1.029 where one at a time gave 0.994-1.001 (tests/gpu/results/h100x2-multi-gpu-batch.txt).
 * Taken before the check's time limit starts, so the wait costs it no time; a stop ends the
 * run in its handler, waiting or not (stop.c). Returns the lock's descriptor, or -1: none. */
int host_link_lock(const options *o, const lab_info *lab)
{
    const char *path = getenv("GRADE_HOST_LINK_LOCK");
    if (!lab->host_link || !path || !*path || strcmp(o->mode, "gpu"))
        return -1;
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}
