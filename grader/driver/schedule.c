/* schedule.c - TRUSTED, NO GPU: the host-link lock (see schedule.h). */
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
