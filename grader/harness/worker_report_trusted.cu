/* worker_report_trusted.cu - TRUSTED SIDE: the CPU emulator's own channel for its fault reports
 * (worker_state_trusted.h): a pipe per worker, fd 5 in it (CUDA_EMU_REPORT_FD, which the
 * emulator takes out of the environment), drained into the check's <log>.report, which the
 * driver reads for the report a check shows (grader/report/terminal.c, fault_source). */
#include "worker_state_trusted.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The emulator's fault reports: a channel of their own (a pipe per worker, fd 5 in it), which
 * the student's code does not print into by printing, so that the report a check shows is the
 * one the emulator made, never text of the same form the code printed after it. What it holds
 * goes into the check's <log>.report (at most REPORT_CAP bytes), which exists, empty or not,
 * wherever a check ran with the channel. */
#define REPORT_CAP (16 << 10)

void worker_report_drain(worker_pool *pool, worker *w)
{
    if (w->pid == 0 || w->report_fd < 0) /* (a worker never started has none: its 0 is no fd) */
        return;
    char buf[4096];
    ssize_t n;
    while ((n = read(w->report_fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        const long long keep = n <= 0 ? 0 : n < REPORT_CAP - pool->report_kept ? n
                               : REPORT_CAP - pool->report_kept;
        if (pool->report_fd >= 0 && keep > 0 && write(pool->report_fd, buf, (size_t)keep) == keep)
            pool->report_kept += keep;
    }
}

/* Whether PATH is a check's log, <lab>.<N>.log or a rerun's <lab>.<N>.emu.log (the report
 * file goes beside those alone: a WHERE count's or a bench's log gets none). */
static int check_log(const char *path)
{
    const size_t l = path ? strlen(path) : 0;
    if (l < 6 || strcmp(path + l - 4, ".log"))
        return 0;
    size_t end = l - 4;
    if (end > 4 && !strncmp(path + end - 4, ".emu", 4))
        end -= 4;
    size_t digits = 0;
    while (end > digits && path[end - digits - 1] >= '0' && path[end - digits - 1] <= '9')
        digits++;
    return digits > 0 && end > digits && path[end - digits - 1] == '.';
}


void workers_report_begin(worker_pool *pool, const char *log_path)
{
    pool->report_fd = -1;
    pool->report_kept = 0;
#if defined(CUDA_EMU)
    char report[4200];
    const size_t ll = log_path ? strlen(log_path) : 0;
    if (check_log(log_path) && !pool->inprocess &&
        snprintf(report, sizeof report, "%.*s.report", (int)(ll - 4), log_path) < (int)sizeof report)
        pool->report_fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (int i = 0; i < MAX_IMPLS; i++) /* (what a spare said before the check is not its) */
        if (pool->w[i].report_fd >= 0) {
            const int keep = pool->report_fd;
            pool->report_fd = -1;
            worker_report_drain(pool, &pool->w[i]);
            pool->report_fd = keep;
        }
#else
    (void)log_path;
#endif
}

void workers_report_end(worker_pool *pool)
{
    for (int i = 0; i < MAX_IMPLS; i++)
        worker_report_drain(pool, &pool->w[i]);
    if (pool->report_fd >= 0)
        close(pool->report_fd);
    pool->report_fd = -1;
}
