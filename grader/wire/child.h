/* child.h - TRUSTED: one child process of the driver (a lab's harness), under a time limit.
 *
 * How it ended is a raw fact the verdicts read (grader/decide/verdict.h, decide_process). */
#ifndef GRADER_WIRE_CHILD_H
#define GRADER_WIRE_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a child process ended. */
typedef struct child_outcome {
    int exited;       /* 1 if it called exit (status is valid) */
    int status;       /* its exit status, if exited */
    int signal;       /* the signal that killed it, if !exited and !timed_out */
    int timed_out;    /* 1 if the driver killed it at the time limit */
    double seconds;   /* wall time from start to end */
    int isolated;     /* 1 when the driver knows the process held no student code: the lab's
                         harness said, before any student code could be in it, that student
                         code runs in sandboxed workers (and the driver asked for that), or it
                         ended before saying anything. Its exit status and its own error
                         records are then the grader's. Never taken from a record. */
} child_outcome;

/* Run argv[0] with argv in its own process group, stdout and stderr appended to log_path,
 * stdin from /dev/null; kill the whole group after timeout_s. Returns 0, or -1 if it could
 * not be started (o->status is then 127). */
int run_child(char *const argv[], const char *log_path, double timeout_s, child_outcome *o);

/* Wait for child `pid` (a stop_fork child, in a process group of its own) until `left` seconds
 * after `start` (wall_seconds), then kill its group: 1 when it ended in time (its wait status
 * in *status), 0 when it was killed at the limit (or could not be waited for), -1 when it had
 * been reaped already (by a sweep: ECHILD). Either way it is no longer the run's to stop
 * (stop_forget; no sweep: what it started is its own to end). */
int child_wait_or_kill(pid_t pid, double start, double left, int *status);

/* A TMPDIR for a process this one starts (a harness, an emulated harness, a WHERE count):
 * PREFIX-XXXXXX in this run's TMPDIR, into dir (len bytes), searchable by all, registered with
 * stop_temp_dir so that a stop removes it; "" if it could not be made. scratch_remove: every
 * process that could write there has ended, so it goes, and dir becomes "". */
void scratch_make(char *dir, size_t len, const char *prefix);
void scratch_remove(char *dir);

/* Send sig to process `root` and every process descended from it (their parents, read from
 * /proc, lead back to it), whatever process group or session each is in: SIGSTOP and SIGCONT
 * pause and resume a whole piece of work (a WHERE count's emulated harness and its sandboxed
 * workers, a batch's build and its compilers) while a timing it would disturb runs. Returns how
 * many processes were signalled. */
int proc_tree_signal(pid_t root, int sig);

#ifdef __cplusplus
}
#endif
#endif
