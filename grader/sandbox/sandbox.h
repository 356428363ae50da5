/* sandbox.h - TRUSTED: what an untrusted process sees and may do, in one policy.
 *
 * Two kinds of untrusted process run during grading: the student's compile (the compiler reads
 * a file the student wrote) and the workers that load student code. Both start in a child of
 * a trusted process and enter their sandbox between fork and exec:
 *
 *   pid = fork();
 *   if (pid == 0) { ...set up fds...; sandbox_enter(&policy); execve(...); }
 *
 * The strongest way this machine allows is taken:
 *
 *   SANDBOX_NAMESPACES  new user (for an ordinary user), mount, pid, IPC, network and UTS
 *                       namespaces; a fresh root holding only the policy's visible paths
 *                       (read-only) and writable folders, each hidden folder empty wherever it
 *                       sits, a private size-limited /tmp and /dev/shm, a /dev with null,
 *                       zero, urandom (and the GPU's nodes for a worker), its own /proc with
 *                       no process in it but its own (hidepid: the namespace's first process,
 *                       which holds the launcher's arguments, is not listed). Run as root, the
 *                       process then takes an unprivileged uid of its own. With `no_proc`
 *                       (the compile), Landlock, where the kernel has it, then closes /proc
 *                       too: no mount table (/proc/self/mountinfo, /proc/mounts), no command
 *                       line or environment of its own processes. A kernel without Landlock
 *                       (before 5.13, or with the LSM off) leaves them readable; they name
 *                       paths, and hold nothing of a hidden folder's content.
 *   SANDBOX_LANDLOCK    no namespaces (a container whose seccomp profile refuses them, as
 *                       Docker's default does): Landlock limits the files the process may
 *                       read or write to the same paths, a hidden folder inside a visible one
 *                       excepted (its siblings are allowed one by one), and, run as root, the
 *                       process takes an unprivileged uid of its own. Of /proc it may open
 *                       only its own entries (none with `no_proc`, but /proc/cpuinfo).
 *                       Landlock cannot take entries out of a listing: a stat() of
 *                       /proc/<pid> still tells that a process exists and whose it is, though
 *                       no file of it may be opened, and no link of another process's
 *                       (exe, cwd, fd) read, since Landlock keeps a sandboxed process from
 *                       tracing, and so from inspecting, any process outside its sandbox.
 *   SANDBOX_NONE        neither: only the limits below; grading says it is not tamper-proof.
 *
 * In every kind: no controlling terminal (a session of its own), no capabilities, no new
 * privileges, and resource limits (CPU time, address space, file size, processes and threads,
 * open files). The caller's wall-clock limit and, in a worker, the seccomp filter it installs
 * on itself before it loads any code (seccomp.h) complete it.
 *
 * A process that calls setsid() leaves its parent's process group, so a signal to the group
 * no longer reaches it: every such process here also sets PR_SET_PDEATHSIG(SIGKILL) and
 * checks getppid() afterwards, so it dies with the trusted process that started it. */
#ifndef GRADER_SANDBOX_H
#define GRADER_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SANDBOX_NONE = 0,
    SANDBOX_LANDLOCK = 1,
    SANDBOX_NAMESPACES = 2,
} sandbox_kind;

#define SANDBOX_MAX_PATHS 48
#define SANDBOX_MAX_EXTRA 8                       /* folders a batch may add to sandbox_places */
#define SANDBOX_MAX_RESOLVED (6 + SANDBOX_MAX_EXTRA) /* paths a policy builder resolves: the
                                                       * places, the extras, /usr/lib/debug */

/* What an untrusted process sees and may do. Paths are absolute; a path that does not exist
 * is left out. */
typedef struct sandbox_policy {
    const char *what;                            /* "compile", "worker": named in messages */
    const char *visible[SANDBOX_MAX_PATHS];      /* files and folders it may read (and run) */
    int n_visible;
    const char *writable[SANDBOX_MAX_PATHS];     /* folders it may also write */
    int n_writable;
    const char *hidden[SANDBOX_MAX_PATHS];       /* folders that stay out of view even inside a
                                                    visible folder (the checkout under /usr) */
    int n_hidden;
    const char *scratch;       /* a fresh folder of its own: /tmp where there are no
                                  namespaces (with them, /tmp is a private tmpfs) */
    const char *cwd;           /* working folder (visible or writable), or NULL: /tmp */
    int gpu;                   /* 1: the GPU's device nodes, /sys and the driver's /proc files */
    int no_proc;               /* 1: no file of /proc may be opened but /proc/cpuinfo (the
                                  compile: no mount table, no process's command line); 0: its
                                  own processes' entries (the CUDA driver names its threads) */
    int null_only;             /* 1: /dev/null is its only device (0: also zero, full, random,
                                  urandom) */
    long long tmp_bytes;       /* size of the private /tmp */
    long long shm_bytes;       /* size of the private /dev/shm */
    long long as_bytes;        /* address space per process (0: no limit) */
    long long fsize_bytes;     /* largest file it may write */
    long cpu_seconds;          /* CPU time per process */
    long tasks;                /* processes and threads of its uid (0: no limit) */
    long open_files;
    uid_t uid;                 /* run as root: the uid it takes (sandbox_uid(), chosen before the
                                  fork so that the caller can give it its folders); 0: any */
    char resolved[SANDBOX_MAX_RESOLVED][4096]; /* absolute forms of the paths a policy builder
                                  (sandbox_worker_policy) resolved: its lists point here, so a
                                  policy is built in place, never copied */
    int n_resolved;
} sandbox_policy;

/* The standard read-only paths of a program on this machine: the system's programs,
 * libraries and loader configuration, the CUDA toolkit (`cuda_home`, may be NULL) and the
 * NVIDIA driver's libraries (LD_LIBRARY_PATH's folders, /usr/local/nvidia). */
void sandbox_add_system(sandbox_policy *p, const char *cuda_home);

/* Adds a path to a list of the policy (visible, writable, hidden); the string is kept, not
 * copied. Ignored beyond SANDBOX_MAX_PATHS (which the grader's policies stay well under). */
void sandbox_visible(sandbox_policy *p, const char *path);
void sandbox_writable(sandbox_policy *p, const char *path);
void sandbox_hidden(sandbox_policy *p, const char *path);

/* The strongest kind this machine allows (probed once, in a child). GRADER_SANDBOX=landlock
 * or =none asks for a weaker one (tests of the fallbacks). */
sandbox_kind sandbox_available(void);
const char *sandbox_kind_name(sandbox_kind k);

/* In a child between fork and exec: enters the sandbox of `p` with the kind
 * sandbox_available() gives. With namespaces, the calling process stays outside as a small
 * process that waits for the sandboxed one and ends the same way (exit status or signal), so
 * the caller's waitpid() sees the sandboxed program's end; the call returns in the sandboxed
 * process. Never returns on failure: prints "sandbox: ..." on stderr and exits 121. */
void sandbox_enter(const sandbox_policy *p);

/* The folder the sandboxed process should use as TMPDIR and HOME: /tmp with namespaces, the
 * policy's scratch folder without. */
const char *sandbox_tmp(const sandbox_policy *p);

/* The uid an unprivileged sandboxed process takes when the grader runs as root: one of its own
 * per process tree (so no two sandboxes share a process limit or files), or 65534 where the
 * machine maps no such uid. */
uid_t sandbox_uid(void);

/* ------------------------------------------------------------------------------------------ */
/* The grader's policies: what each untrusted process is given, decided here and nowhere else:
 * the student's compile gets sandbox_compile_policy (through grader/sandbox/sandbox_run.c), a worker
 * sandbox_worker_policy (through the harness). */

/* The compile's sandbox, unless sandbox-run's options say otherwise: CPU time, address space
 * per process, largest file, processes and threads, open files, and its private /tmp (a
 * compiler's temporaries: the device code of every architecture). */
#define SANDBOX_COMPILE_CPU_SECONDS 600
#define SANDBOX_COMPILE_MEM_MIB 4096
#define SANDBOX_COMPILE_FILE_MIB 512
#define SANDBOX_COMPILE_TASKS 64
#define SANDBOX_COMPILE_OPEN_FILES 1024
#define SANDBOX_COMPILE_TMP_BYTES (1LL << 30)

/* What the student's compile is given, by name (sandbox-run's command line). */
typedef struct sandbox_compile_inputs {
    const char *what;         /* named in messages: "compile" */
    const char *work;         /* its folder (absolute): the copy of the student's file and the
                                 public headers; the one folder it may write, and where it runs */
    const char *scratch;      /* its /tmp where there are no namespaces (inside work) */
    const char *shown[16];    /* the grader's own paths it is also shown (read-only; a tool
                                 fetched into the build) */
    int n_shown;
    const char *writable[SANDBOX_MAX_PATHS]; /* further folders it may write */
    int n_writable;
    const char *hidden[SANDBOX_MAX_RESOLVED]; /* folders kept out of its view wherever they sit
                                 (inside /usr or /opt too): the checkout, the build, the grading
                                 output, a batch's submissions; what it is shown inside one
                                 stays visible */
    int n_hidden;
    int no_proc;              /* 1: sandbox_policy's no_proc (the compile's /proc: closed) */
    long cpu_seconds;         /* SANDBOX_COMPILE_CPU_SECONDS unless told */
    long tasks;               /* SANDBOX_COMPILE_TASKS unless told */
    long long mem_mib;        /* address space per process, SANDBOX_COMPILE_MEM_MIB unless told */
    long long file_mib;       /* largest file, SANDBOX_COMPILE_FILE_MIB unless told */
} sandbox_compile_inputs;

/* The compile's policy: the system and the toolkit read-only with the paths `in` shows, its
 * work folder (and any other writable folder it names) to write, /dev/null its only device;
 * nothing of the folders `in` hides (the checkout, the solutions, other students, the logs),
 * even where one lies inside a visible folder. Fills *p in place. */
void sandbox_compile_policy(sandbox_policy *p, const sandbox_compile_inputs *in);

/* A worker's sandbox: its private /tmp and /dev/shm, its largest file (device memory, the
 * emulator's too, is no file of its own), its processes and threads, open files, CPU time. */
#define SANDBOX_WORKER_TMP_BYTES (64LL << 20)
#define SANDBOX_WORKER_FILE_BYTES (64LL << 20)
#define SANDBOX_WORKER_TASKS 512
#define SANDBOX_WORKER_OPEN_FILES 1024
#define SANDBOX_WORKER_CPU_SECONDS 3600

/* The places of one grading run that student code never sees, by name. The driver names them
 * (a batch adds its own with the driver's --hide), the harness receives them on its command
 * line (sandbox_places_args), and sandbox_worker_policy hides them from every worker. A path
 * may be relative to the current folder, or NULL; one that does not exist is left out. */
typedef struct sandbox_places {
    const char *checkout;     /* the workbook's checkout: the grader, the solutions, a student
                                 kit's prebuilt references, other trees */
    const char *solutions;    /* the solutions (a link may take them out of the checkout) */
    const char *labdir;       /* the build's harnesses and reference objects */
    const char *student_objs; /* this tree's student objects: the folder that holds it (every
                                 tree's build) is hidden */
    const char *logs;         /* the run's logs and records */
    const char *extra[SANDBOX_MAX_EXTRA]; /* what a batch adds: its output (the other
                                 students' trees and reports), its submissions */
    int n_extra;
} sandbox_places;

/* Adds `dir` to places->extra; -1 when SANDBOX_MAX_EXTRA are there already. */
int sandbox_places_hide(sandbox_places *places, const char *dir);

/* The harness's command-line options that carry `places` (--checkout DIR, --solutions DIR,
 * --labdir DIR, --student-objs DIR, --logs DIR, --hide DIR ...): appended to argv[*n..max),
 * each a pointer into places; returns -1 when they do not fit. sandbox_places_option reads one
 * back: 1 when `name` is one of them (its value stored), 0 when not, -1 when extra is full. */
int sandbox_places_args(const sandbox_places *places, char **argv, int *n, int max);
int sandbox_places_option(sandbox_places *places, const char *name, const char *value);

/* The policy of a worker that runs `program` and loads `object` (NULL: none, the harness's
 * probe): the system, the toolkit and the NVIDIA driver read-only, the program and the object,
 * the GPU's device nodes when `gpu`, a private /tmp and /dev/shm (device memory, the
 * emulator's too, comes by descriptor) and, where there are no namespaces, `scratch` (NULL:
 * none); nothing of `places` (NULL: nothing named), of other trees or of other processes. Its
 * program and object stay visible at their paths inside a hidden folder. Fills *p in place. */
void sandbox_worker_policy(sandbox_policy *p, const sandbox_places *places, const char *program,
                           const char *object, const char *scratch, int gpu);

/* In the harness's process, before it starts (the harness is trusted and runs unsandboxed):
 * under the CPU emulator (`emulated`) it gets a /dev/shm of its own, a bounded tmpfs in a
 * mount namespace its workers inherit, so that another grading's files are not in its view,
 * what is written there is not in another's, and it cannot fill the machine's memory.
 * Emulated device memory is not kept there (anonymous memory, a memfd once handed to a
 * worker: see common/emu/src/devmem.cpp) and a sandboxed worker mounts one of its own over it,
 * so what writes there is student code the harness loads itself where the sandbox cannot
 * work. Says on stderr (the harness's log) when it cannot. */
void sandbox_harness_view(int emulated);

#ifdef __cplusplus
}
#endif
#endif
