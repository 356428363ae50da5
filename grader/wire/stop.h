/* stop.h - TRUSTED: a grading run that is stopped stops everything it started.
 *
 * Ctrl-C (the terminal sends SIGINT to every process of its foreground group), a hang-up
 * (SIGHUP), SIGTERM, or `timeout` on `make grade`, grader/driver/grade.sh or `make grade-batch` ends
 * every process of the run within 2 seconds, leaves no lock held and no half-written file,
 * and leaves nothing behind that the next run would wait for. The programs that start
 * processes for a run (grader/driver/driver.c, grader/batch/batch.c) keep that promise with this
 * module, under a contract that every process of the run must honour:
 *
 *   1. Each child starts through stop_fork(): in a process group of its own, which everything
 *      it starts in turn joins (sh, flock, make, nvcc with its cicc and ptxas, g++, emu-nvcc,
 *      vet.sh, the harness). Its group is registered here before a stop can be taken (the
 *      stop signals are blocked from before the fork until then).
 *   2. On SIGINT, SIGTERM or SIGHUP (stop_on_signals()) every registered group gets SIGTERM
 *      (and SIGCONT, should it be stopped) and a short grace to end: make deletes the target
 *      it was writing, a grader below does this same cleanup. Then those groups and every
 *      process still below this one get SIGKILL, the temporary files registered with
 *      stop_temp() are removed, and the program ends by the same signal (a shell sees status
 *      128 + its number).
 *   3. A process that leaves its parent's process group or session (setsid, setpgid: the
 *      sandboxed worker, the student's compile in a sandbox) is out of reach of the group
 *      signal of rule 2, so it must die with its parent: right after leaving, it sets
 *      PR_SET_PDEATHSIG (SIGKILL) and then checks that getppid() is still the process that
 *      forked it, and exits if not (the parent died before the prctl, and no signal will
 *      come). PR_SET_PDEATHSIG fires when the forking *thread* ends: fork such processes from
 *      a thread that lives as long as they should. What they start in turn stays in their
 *      group or follows this same rule.
 *   4. Each of these programs is a child subreaper (PR_SET_CHILD_SUBREAPER): a process whose
 *      parent died is re-parented to it instead of to init, so rule 2's sweep finds and kills
 *      it even where rule 3 was broken.
 *
 * Locks: the kernel releases a flock when the last descriptor of it closes, in whichever
 * process that is. A lock a run takes is therefore never inherited by what it starts
 * (O_CLOEXEC; the build lock is taken with `flock -o`), so it ends with its holder.
 * Files: results are written under a temporary name registered with stop_temp(), then renamed
 * into place, so a stop leaves the previous file or none, never a truncated one. */
#ifndef GRADER_STOP_H
#define GRADER_STOP_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Handle SIGINT, SIGTERM and SIGHUP as rule 2 says (a signal that was ignored, as under nohup,
 * stays ignored) and become a child subreaper. `grace_ms`: how long the registered groups get
 * between SIGTERM and SIGKILL. `message`: one line for stderr once everything has ended,
 * after "Stopped by SIGINT (Ctrl-C): " (NULL: say nothing). */
void stop_on_signals(int grace_ms, const char *message);

/* fork() for a child of the run (rule 1). In the child: a process group of its own, the stop
 * signals as they were before stop_on_signals(), nothing registered, and PR_SET_PDEATHSIG
 * with `deathsig` (0: none); it exits at once if the parent has already gone. In the parent:
 * the child's group is registered. Returns what fork() returns. */
pid_t stop_fork(int deathsig);

/* Child `pid` of stop_fork() has been waited for, and its group killed or empty: it is no
 * longer this run's to stop. */
void stop_forget(pid_t pid);

/* A temporary file that a stop removes (rule 2), and the end of that once it has been renamed
 * into place or removed. At most 8 at once; the path is copied. */
void stop_temp(const char *path);
void stop_temp_done(const char *path);
/* The same for a temporary folder: a stop removes it with everything in it (stop_remove_tree). */
void stop_temp_dir(const char *path);

/* Remove folder `path` and everything in it, following no link; async-signal-safe (the stop
 * calls it from its signal handler). What cannot be removed is left. */
void stop_remove_tree(const char *path);

/* SIGKILL every process below this one (its children, and orphans it adopted as a subreaper)
 * and reap them, for at most `timeout_ms`. Only where every child may go: after the last one
 * this process started was waited for. */
void stop_sweep(int timeout_ms);


#ifdef __cplusplus
}
#endif
#endif
