/* seccomp.c - TRUSTED CODE, run in the worker before any untrusted code: the worker's
 * system-call filter (contract: seccomp.h).
 *
 * The filter allows what the CUDA driver and runtime need (memory, files read through the
 * read-only view, device ioctls, threads, clocks, the command socket) and nothing that could
 * reach outside: no execve, no new processes (threads are fine), no ptrace or
 * process_vm_*, no new sockets (the command socket is inherited), no signals to other
 * processes, no new session, no mounts or namespaces, no rlimit changes, no terminal input
 * injection. A refused call returns EPERM (the first few are logged on stderr, so a
 * learner sees what the sandbox stopped); the escape attempts kill the process outright. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* System calls the CUDA driver and runtime, the C library and a lab's code need. */
static const int allowed[] = {
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_open,
    SYS_openat, SYS_close, SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat, SYS_statx,
    SYS_lseek, SYS_mmap, SYS_mprotect, SYS_munmap, SYS_mremap, SYS_madvise, SYS_brk,
    SYS_msync, SYS_mincore, SYS_mlock, SYS_munlock, SYS_mbind, SYS_get_mempolicy,
    SYS_set_mempolicy, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn,
    SYS_rt_sigtimedwait, SYS_sigaltstack, SYS_access, SYS_faccessat,
    SYS_faccessat2, SYS_pipe, SYS_pipe2, SYS_dup, SYS_dup2, SYS_dup3, SYS_fcntl,
    SYS_getdents64, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_readlink, SYS_readlinkat,
    SYS_mkdir, SYS_mkdirat, SYS_unlink, SYS_unlinkat, SYS_rename, SYS_ftruncate,
    SYS_fallocate, SYS_fsync, SYS_fdatasync, SYS_flock, SYS_umask, SYS_memfd_create,
    SYS_getpid, SYS_gettid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
    SYS_getresuid, SYS_getresgid, SYS_getgroups, SYS_uname, SYS_sysinfo, SYS_getrusage,
    SYS_times, SYS_getrlimit, SYS_clock_gettime, SYS_clock_getres, SYS_clock_nanosleep,
    SYS_nanosleep, SYS_gettimeofday, SYS_time, SYS_sched_yield, SYS_sched_getaffinity,
    SYS_sched_getparam, SYS_sched_getscheduler,
    SYS_sched_get_priority_max, SYS_sched_get_priority_min, SYS_getpriority, SYS_getcpu, SYS_futex, SYS_set_robust_list, SYS_get_robust_list,
    SYS_set_tid_address, SYS_rseq, SYS_arch_prctl, SYS_prctl, SYS_exit, SYS_exit_group,
    SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6, SYS_epoll_create1, SYS_epoll_ctl,
    SYS_epoll_wait, SYS_epoll_pwait, SYS_eventfd2, SYS_timerfd_create, SYS_timerfd_settime,
    SYS_timerfd_gettime, SYS_membarrier, SYS_sendmsg, SYS_recvmsg, SYS_sendto,
    SYS_recvfrom, SYS_getsockopt, SYS_getrandom, SYS_restart_syscall,
    SYS_capget, SYS_socketpair, SYS_symlink, SYS_symlinkat, SYS_link, SYS_linkat,
    SYS_getsockname, SYS_getpeername, SYS_shutdown, SYS_bind, SYS_setsockopt, SYS_listen,
    SYS_accept, SYS_accept4,
};

/* System calls whose only use here is an escape: the process is killed on the spot. */
static const int fatal_calls[] = {
    SYS_execve, SYS_execveat, SYS_fork, SYS_vfork, SYS_ptrace, SYS_process_vm_readv,
    SYS_process_vm_writev, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare,
    SYS_setns, SYS_setsid, SYS_setpgid, SYS_kexec_load, SYS_init_module,
    SYS_finit_module, SYS_delete_module, SYS_bpf, SYS_pidfd_open, SYS_pidfd_getfd,
    SYS_kcmp,
};

#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))

/* The longest filter program: one that would be longer is refused whole (sandbox_seccomp_worker
 * returns -1 before installing it). */
#define PROG_MAX 512

/* Append one instruction to prog, where *n counts them (past PROG_MAX they are counted, not
 * stored). A function, not a macro: the sanitizers' build of the emulated harness took seconds
 * to compile two hundred inlined stores. */
static void emit(struct sock_filter *prog, int *n, unsigned short code, unsigned k,
                 unsigned char jt, unsigned char jf)
{
    if (*n < PROG_MAX) {
        prog[*n].code = code, prog[*n].k = k, prog[*n].jt = jt, prog[*n].jf = jf;
    }
    (*n)++;
}
#define EMIT(code_, k_, jt_, jf_) emit(prog, &n, (code_), (k_), (jt_), (jf_))

static int refused_logged;

/* SIGSYS from SECCOMP_RET_TRAP: say which call was refused and make it return EPERM. */
static void on_sigsys(int sig, siginfo_t *info, void *uc_)
{
    (void)sig;
    ucontext_t *uc = (ucontext_t *)uc_;
    if (refused_logged < 8) {
        char msg[96];
        const int len = snprintf(msg, sizeof msg,
                                 "sandbox: system call %d refused (a grading worker may not "
                                 "make it)\n", info->si_syscall);
        if (write(2, msg, (size_t)len) < 0) { /* nothing to do */
        }
        refused_logged++;
    }
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

/* See seccomp.h. Longer than most functions here: one filter program, emitted in the order it
 * runs, whose jumps count the instructions between them; it reads best whole. */
int sandbox_seccomp_worker(void)
{
    struct sock_filter prog[PROG_MAX];
    int n = 0;
    const pid_t me = getpid();
    /* Wrong architecture or the x32 ABI: kill. */
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    EMIT(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
    for (size_t i = 0; i < sizeof fatal_calls / sizeof fatal_calls[0]; i++) {
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fatal_calls[i], 0, 1);
        EMIT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
    }
    /* clone: threads only (CLONE_THREAD); a new process is an escape. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
    EMIT(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
    /* clone3 hides its flags in memory: ENOSYS makes the C library fall back to clone. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
    /* kill and tgkill: only this process (raise(), abort(), thread signals). */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 1, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 4);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)me, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
    /* ioctl: everything the driver uses, but not pushing input into a terminal. */
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0x5412 /* TIOCSTI */, 1, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0x541C /* TIOCLINUX */, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    /* setpriority, sched_setaffinity, sched_setscheduler, sched_setparam: the caller only
     * (PRIO_PROCESS with who 0; pid 0). Another process of the same user (the reference's worker, the harness)
     * would otherwise be reniced or pinned to a busy CPU while it is timed. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_setpriority, 0, 6);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0); /* which: PRIO_PROCESS (not a group or user) */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0 /* PRIO_PROCESS */, 0, 3);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1), 0, 0); /* who: 0, the caller */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setaffinity, 3, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setscheduler, 2, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setparam, 1, 0);
    EMIT(BPF_JMP | BPF_JA, 4, 0, 0);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    /* prlimit64: reading limits only (getrlimit); no new limit, no other process. */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, 0, 7);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2) + 4, 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2);
    EMIT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
    /* socket: Unix sockets only. The CUDA driver makes, binds and listens on one of its own
     * at start-up; connect is refused, so no socket of the worker reaches another process
     * (the command socket, inherited, is its only channel out). */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4);
    EMIT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0), 0, 0);
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, 1 /* AF_UNIX */, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES, 0, 0);
    /* connect: no socket of this process reaches another (the driver's own probes for an
     * MPS server are told nobody is there). */
    EMIT(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1);
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ECONNREFUSED, 0, 0);
    /* Then the allowlist (nr is in the accumulator on this path). */
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        EMIT(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed[i], 0, 1);
        EMIT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
    }
    EMIT(BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0); /* anything else: EPERM, logged */
    if (n > PROG_MAX)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    struct sock_fprog fprog = {(unsigned short)n, prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}
