/* seccomp.h - TRUSTED CODE in an untrusted process: the system calls a grading worker may make.
 *
 * The worker (grader/worker/worker_untrusted.c) calls this after its sandbox is entered
 * (sandbox.h: the files it sees, its limits) and before it loads any student code, so even
 * the loaded object's constructors run under the filter. The rest of the policy is
 * sandbox.h's; this is the part a process can only apply to itself. */
#ifndef GRADER_SANDBOX_SECCOMP_H
#define GRADER_SANDBOX_SECCOMP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the worker's filter on this process and every thread it starts (no new
 * privileges first, as the kernel requires): the calls the CUDA driver and runtime, the C
 * library and a lab's code need are allowed; an escape (execve, fork, ptrace, mount,
 * namespaces, another process's memory) kills the process; anything else returns EPERM and
 * the first few are logged on stderr. 0, or -1 with errno when it cannot be installed. */
int sandbox_seccomp_worker(void);

#ifdef __cplusplus
}
#endif
#endif
