/* pieces.h - TRUSTED: how the pieces of the sandbox call each other (private to grader/sandbox/;
 * everything else uses sandbox.h). Each piece calls only the pieces below it, never one above:
 *
 *   sandbox.c      chooses a kind and enters it; the harness's own view
 *   namespaces.c   builds the namespaces kind        (calls landlock.c, limits.c, policy.c)
 *   landlock.c     builds the Landlock kind          (calls limits.c, policy.c)
 *   limits.c       the uid, privileges and limits every kind ends with (calls policy.c)
 *   policy.c       the policies themselves, as data, and how a piece fails (calls nothing) */
#ifndef SANDBOX_PIECES_H
#define SANDBOX_PIECES_H

#include "sandbox.h"

#include <sys/types.h>

/* policy.c: one line on stderr, exit 121 (the caller names the sandbox in its message). */
void sandbox_die(const sandbox_policy *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* policy.c: is `path` `dir` or below it? */
int sandbox_path_under(const char *path, const char *dir);

/* limits.c */
long sandbox_tasks_of_uid(uid_t uid);
void sandbox_become_unprivileged(const sandbox_policy *p, uid_t uid);
void sandbox_drop_privileges(const sandbox_policy *p);
void sandbox_apply_limits(const sandbox_policy *p, long tasks_before);

/* namespaces.c: enter the namespaces kind (0, or -1: this machine refuses it; probe_only: end
 * with status 0 once it is set up); a mount namespace of the process's own (the harness's view). */
int sandbox_enter_namespaces(const sandbox_policy *p, uid_t uid, int probe_only);
int sandbox_own_mount_namespace(void);

/* landlock.c: enter the Landlock kind (as sandbox_enter_namespaces); close /proc inside the
 * namespaces' root. */
int sandbox_enter_landlock(const sandbox_policy *p, uid_t uid, int probe_only);
void sandbox_close_proc(const sandbox_policy *p);

#endif
