/* harnesses.c - TRUSTED, NO GPU: the harness as a process of the driver, which serves the
 * run's labs one after the other (see harnesses.h). */
#include "harnesses.h"
#include "../plan/speed_plan.h"
#include "../wire/check_line.h"
#include "../wire/stop.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int harness_start(const options *o, const lab_info *lab, harness_proc *h)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        return -1;
    char exe[512], log_path[512];
    snprintf(exe, sizeof exe, "%s/harness", o->labdir);
    report_lab_file(log_path, sizeof log_path, o->logs, lab->name, REPORT_HARNESS_LOG);
    scratch_make(h->tmp, sizeof h->tmp, "grader-run"); /* its own TMPDIR */
    fflush(stdout);
    fflush(stderr);
    /* Its own group, so that a timeout or a stop kills it at once, and it dies with this
     * process; its workers, in sessions of their own, die with it (stop.h, rule 3). */
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0) {
        scratch_remove(h->tmp);
        return -1;
    }
    if (pid == 0) {
        /* (its start-up's words into the first lab's log; each `lab` line moves them) */
        const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (log >= 0)
            dup2(log, 2);
        sandbox_harness_view(!strcmp(o->mode, "emu"));
        if (h->tmp[0])
            setenv("TMPDIR", h->tmp, 1);
        char *argv[48];
        int n = 0;
        argv[n++] = exe, argv[n++] = "--serve", argv[n++] = "--worker", argv[n++] = (char *)o->worker;
        argv[n++] = "--isolation", argv[n++] = (char *)o->isolation;
        /* what the student's worker may not see, by name (sandbox_worker_policy) */
        if (sandbox_places_args(&o->hidden, argv, &n, 45) != 0) {
            fprintf(stderr, "too many folders to hide from student code\n");
            _exit(127);
        }
        if (o->require_isolation)
            argv[n++] = "--require-isolation";
        argv[n] = NULL;
        execv(exe, argv);
        fprintf(stderr, "cannot start %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    h->pid = pid;
    h->cmd = fdopen(in[1], "w");
    h->reply = out[0];
    h->started++;
    return 0;
}

/* Stop the harness and everything it started (its workers die with it: PDEATHSIG). */
void harness_stop(harness_proc *h, child_outcome *o)
{
    if (h->pid <= 0)
        return;
    int status = 0;
    if (h->cmd)
        fclose(h->cmd);
    kill(-h->pid, SIGKILL);
    waitpid(h->pid, &status, 0);
    stop_forget(h->pid);
    /* its workers, adopted here once it died (stop.h, rule 4): reaped */
    stop_sweep(1000);
    scratch_remove(h->tmp); /* every process that could write there has ended */
    close(h->reply);
    if (o && !o->timed_out) {
        if (WIFEXITED(status)) {
            o->exited = 1;
            o->status = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            o->signal = WTERMSIG(status);
        }
    }
    const int started = h->started; /* (the run's, not the process's) */
    const double lab_start_s = h->lab_start_s;
    memset(h, 0, sizeof *h);
    h->started = started;
    h->lab_start_s = lab_start_s;
}

/* Send `line` to harness h and read its replies until `want` (prefix: a line that starts with
 * it) or `deadline` (wall_seconds()). 1: answered; 0: the deadline passed (or a stop); -1: the
 * harness ended (or could not be written to). */
static int harness_ask(const options *o, harness_proc *h, greeting *g, const char *line,
                       const char *want, int prefix, double deadline)
{
    if (fputs(line, h->cmd) == EOF || fflush(h->cmd) != 0)
        return -1;
    char buf[RECORD_MAX_LINE];
    size_t got = 0;
    for (;;) {
        const double left = deadline - wall_seconds();
        struct pollfd pf = {h->reply, POLLIN, 0};
        const int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR && !grading_stopped())
            continue;
        if (r <= 0)
            return 0;
        const int answered = harness_read_reply(o, h, g, buf, sizeof buf, &got, want, prefix);
        if (answered != 0)
            return answered;
    }
}

/* Lab `lab` served by h: a harness started if none runs, and told to begin the lab unless it
 * serves it already. 0, or -1 (out says how the harness ended: it is stopped). */
static int harness_lab_begin(const options *o, const lab_info *lab, harness_proc *h, greeting *g,
                             double deadline, child_outcome *out)
{
    if (h->pid > 0 && h->lab == lab)
        return 0;
    if (h->pid <= 0 && harness_start(o, lab, h) != 0) {
        out->exited = 1;
        out->status = 127;
        return -1;
    }
    lab_cmd c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", lab->name);
    snprintf(c.problem, sizeof c.problem, "%s/%s/problem.so", o->labdir, lab->name);
    snprintf(c.student, sizeof c.student, "%s/%s/student.so", o->student_objs, lab->name);
    snprintf(c.reference, sizeof c.reference, "%s/%s/reference.so", o->labdir, lab->name);
    report_lab_file(c.log, sizeof c.log, o->logs, lab->name, REPORT_HARNESS_LOG);
    static char line[LAB_LINE_MAX];
    const double at = wall_seconds();
    const int ready = lab_line_format(&c, line, sizeof line) == 0
                          ? harness_ask(o, h, g, line, "lab ready", 0, deadline) : -1;
    h->lab_start_s += wall_seconds() - at;
    /* Held no student code: it ended before its greeting said otherwise (it reads the
     * command only after greeting), or greeted that student code runs isolated. */
    out->isolated = h->greeted < 2 || g->isolated;
    if (ready == 1) {
        h->lab = lab;
        return 0;
    }
    out->timed_out = ready == 0 && !grading_stopped();
    harness_stop(h, out);
    return -1;
}

/* The lab h serves is over: its workers and memory gone, in the harness (`end`, answered
 * "ended"); a harness that does not answer in time, or ends instead (it found something of
 * the lab left), is stopped: the next lab starts a fresh one. So is one that holds student code
 * (the fallback: not isolated). */
void harness_lab_end(const options *o, harness_proc *h, greeting *g)
{
    if (h->pid > 0 && h->lab && (h->greeted < 2 || !g->isolated ||
                                 harness_ask(o, h, g, "end\n", "ended", 0,
                                             wall_seconds() + HARNESS_END_S) != 1))
        harness_stop(h, NULL);
    h->lab = NULL;
}

/* One read of harness h's replies into buf (cap bytes, *got of them held), and every whole line
 * read so far taken: its greeting's two lines (greeting_take into g, once), then a line that is
 * `want` (or, `prefix`, starts with it). 1 once such a line was taken, 0 if none yet (any
 * other line is dropped), -1 if nothing could be read (the harness ended). */
int harness_read_reply(const options *o, harness_proc *h, greeting *g, char *buf,
                              size_t cap, size_t *got, const char *want, int prefix)
{
    const ssize_t n = read(h->reply, buf + *got, cap - 1 - *got);
    if (n <= 0)
        return -1;
    *got += (size_t)n;
    buf[*got] = 0;
    int taken = 0;
    char *nl;
    while (!taken && (nl = strchr(buf, '\n'))) { /* every whole line read so far */
        *nl = 0;
        if (h->greeted < 2) /* its greeting, once */
            greeting_take(g, h->greeted++, buf, !strcmp(o->isolation, "on"),
                          sandbox_available() != SANDBOX_NONE);
        else if (prefix ? strncmp(buf, want, strlen(want)) == 0 : strcmp(buf, want) == 0)
            taken = 1;
        /* (anything else is not an answer: dropped) */
        *got -= (size_t)(nl + 1 - buf);
        memmove(buf, nl + 1, *got + 1);
    }
    if (*got >= cap - 1)
        *got = 0;
    return taken;
}

/* Run check `i` through the harness; fills o as if the check had been a process of its own
 * (exited 0 when the harness answered "done"). */
void harness_check(const options *o, const lab_info *lab, harness_proc *h, greeting *g,
                          int i, double threshold, double timeout, const char *records,
                          const char *log_path, child_outcome *out)
{
    memset(out, 0, sizeof *out);
    const double start = wall_seconds();
    if (harness_lab_begin(o, lab, h, g, start + timeout, out) != 0) {
        out->seconds = wall_seconds() - start;
        return;
    }
    check_cmd cmd = {.check = i, .seed = o->seed, .threshold = threshold, .cap_s = SPEED_CAP_S,
                     .timeout_s = timeout};
    char line[CHECK_LINE_MAX];
    snprintf(cmd.records, sizeof cmd.records, "%s", records);
    snprintf(cmd.log, sizeof cmd.log, "%s", log_path);
    if (check_line_format(&cmd, line, sizeof line) != 0) { /* (paths too long to send) */
        out->exited = 1;
        out->status = 127;
        return;
    }
    fputs(line, h->cmd);
    fflush(h->cmd);
    char buf[RECORD_MAX_LINE];
    size_t got = 0;
    for (;;) {
        const double left = timeout - (wall_seconds() - start);
        struct pollfd pf = {h->reply, POLLIN, 0};
        const int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR && !grading_stopped())
            continue;
        /* Held no student code: it ended before its greeting said otherwise (it reads the
         * command only after greeting), or greeted that student code runs isolated. */
        out->isolated = h->greeted < 2 || g->isolated;
        if (r <= 0) { /* the time limit (or Ctrl-C): everything of the lab's goes */
            out->timed_out = !grading_stopped();
            harness_stop(h, out);
            break;
        }
        const int answered = harness_read_reply(o, h, g, buf, sizeof buf, &got, "done ", 1);
        if (answered < 0) { /* the harness died */
            harness_stop(h, out);
            break;
        }
        if (answered) {
            out->exited = 1;
            out->status = 0;
            out->isolated = g->isolated;
            break;
        }
    }
    out->seconds = wall_seconds() - start;
}
