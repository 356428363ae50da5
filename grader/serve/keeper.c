/* keeper.c - TRUSTED: one grading's keeper (serve-keeper), between a grading slot and the
 * make grade it runs, so that a grading cut off leaves nothing running: it is a child subreaper
 * that keeps grader/wire/stop.h's contract (the stop module: its child in a process group of
 * its own, every process below it swept at the end), and it dies with the server: when the
 * slot's thread ends (the server killed, even by SIGKILL) it gets SIGTERM, which ends make grade
 * and everything under it, the compile sandboxes that left make's group among them.
 *
 *   serve-keeper COMMAND ARGS...     (exits with COMMAND's status, 128 + a signal's number) */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../wire/stop.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: serve-keeper COMMAND ARGS...\n");
        return 2;
    }
    const pid_t parent = getppid();
    stop_on_signals(800, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) /* the server died before the prctl: no signal will come */
        return 2;
    const pid_t pid = stop_fork(SIGKILL);
    if (pid < 0)
        return 2;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    stop_forget(pid);
    stop_sweep(2000);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
