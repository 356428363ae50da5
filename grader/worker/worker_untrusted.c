/* worker_untrusted.c - UNTRUSTED PROCESS: main() of a worker, before any untrusted code runs.
 *
 *   worker IMPLEMENTATION.so SOCKET_FD [READY_FD gpu|emu]
 *
 * The harness (grader/harness/worker_lifecycle_trusted.cu) forks, puts the child in a read-only mount
 * namespace with rlimits and no capabilities, and executes this program. Its only job is to
 * close the last doors and then load the implementation: it installs the seccomp filter
 * (grader/sandbox/seccomp.c: what the filter allows is the sandbox's to say), and only then
 * dlopen()s the shared object that holds the student's (or the reference's) code and the
 * lab's shim, so even the object's constructors run inside the filter. From then on every
 * byte of this process belongs to that code; the harness trusts nothing it says.
 *
 * A worker may be started ahead of its first call (a spare, grader/harness/worker_trusted.h:
 * workers_prewarm), so that its start-up overlaps the harness's own work. Before it loads
 * the implementation it makes the GPU's context (on a GPU; what takes longest in a CUDA
 * program's start), writes a byte to READY_FD (the harness's sign that the start-up is over), and
 * waits for the first command to arrive: no code of the implementation runs, and nothing
 * of it is loaded, before the harness asks for a call. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../sandbox/seccomp.h"
#include "../wire/proto.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The device printf buffer a worker's context gets: room for about a million lines of a
 * few numbers each. A kernel whose printf finds the buffer full waits while the driver drains
 * it, line by line: on an H200 a kernel printing 1.05 million lines took 80 to 130 s with the
 * default buffer (8 MiB there) and 0.55 s, plus 0.76 s to print at the next synchronisation,
 * with 256 MiB; 100,000 lines took 2.06 s with 512 KiB, 0.35 s with 8 MiB, 0.08 s with 64 MiB
 * (tests/gpu/printf-probe.cu). Only what the check's log keeps is kept of it (1 MB). */
#define WORKER_PRINTF_FIFO_BYTES ((size_t)64 << 20)
#define WORKER_CU_LIMIT_PRINTF_FIFO_SIZE 0x01 /* CUlimit's value, cuda.h */

/* The GPU's primary context, made now through the driver (the CUDA runtime of the object
 * loaded later takes the same context up, so that its first call does not wait for one), with
 * its printf buffer set before any kernel runs (the driver refuses a change after one that
 * prints). Best effort: where it fails, nothing is made, and the runtime meets and reports the
 * same error at its first call, as it would without this. */
static void make_gpu_context(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda)
        return;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*retain)(void **, int) = (int (*)(void **, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int (*current)(void *) = (int (*)(void *))dlsym(cuda, "cuCtxSetCurrent");
    int (*limit)(int, size_t) = (int (*)(int, size_t))dlsym(cuda, "cuCtxSetLimit");
    int dev = 0;
    void *ctx = NULL;
    if (init && get && retain && init(0) == 0 && get(&dev, 0) == 0 &&
        retain(&ctx, dev) == 0 && /* kept for the process's life: the runtime's from now on */
        current && limit && current(ctx) == 0)
        (void)limit(WORKER_CU_LIMIT_PRINTF_FIFO_SIZE, WORKER_PRINTF_FIFO_BYTES);
}

/* Until the first command is there to read (or the harness is gone); reads nothing. */
static void wait_for_first_command(int sock)
{
    struct pollfd pf = {sock, POLLIN, 0};
    while (poll(&pf, 1, -1) < 0 && errno == EINTR)
        ;
}

/* PROTO_LOAD's answer, once its object is loaded (the loop that took the command returned
 * without one): 0, or -1 when the harness is gone. */
static int answer_loaded(int sock)
{
    proto_reply r;
    memset(&r, 0, sizeof r);
    r.magic = PROTO_MAGIC;
    return proto_write_all(sock, &r, sizeof r);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: worker IMPLEMENTATION.so SOCKET_FD [READY_FD gpu|emu] (started "
                        "by the grader)\n");
        return 2;
    }
    const int sock = atoi(argv[2]);
    const int ready = argc == 5 ? atoi(argv[3]) : -1;
    const int gpu = argc == 5 && !strcmp(argv[4], "gpu"); /* (the CPU emulator has no context) */
    /* Not dumpable: no other process of this user (a student's worker beside this one, when
     * grading runs as root; another student's in a batch) may open this one's memory through
     * /proc/PID/mem. Its capabilities are gone, so the kernel's only other guard would be
     * gone too. Set before any untrusted code runs; an implementation may undo it only for
     * its own process. */
    if (prctl(PR_SET_DUMPABLE, 0) != 0) {
        fprintf(stderr, "worker: cannot make this process undumpable: %s\n", strerror(errno));
        return 2;
    }
    /* First in line for the kernel's out-of-memory killer: code that allocates all the host's
     * memory ends its own worker, not the grader (raising one's own score needs no privilege;
     * lowering it again does). */
    FILE *oom = fopen("/proc/self/oom_score_adj", "w");
    if (oom) {
        fputs("1000", oom);
        fclose(oom);
    }
    /* stdout is a pipe to the harness's relay, so the C library would hold what the code
     * prints until a buffer fills, and a worker ended with SIGKILL (a time limit, a check
     * that replaces it) or by a crash would take it along. Unbuffered, from before the code
     * is loaded: every printf, and the CUDA runtime's flush of device printf at a
     * synchronisation, is in the pipe when it returns (the shim flushes C++ streams and any
     * buffering the code sets itself before each reply). */
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    if (!getenv("GRADER_NO_SECCOMP") && sandbox_seccomp_worker() != 0) {
        fprintf(stderr, "worker: cannot install the seccomp filter: %s\n", strerror(errno));
        return 2;
    }
    if (gpu)
        make_gpu_context();
    if (ready >= 0) { /* a byte, not the end of the pipe: the sandbox's outer processes hold
                         a copy of its write end for their lives */
        if (write(ready, "r", 1) < 0) { /* the harness is gone: the socket says so too */
        }
        close(ready);
    }
    wait_for_first_command(sock);
    /* The object, then (the reference's worker alone, between two labs of one harness) each
     * object its command loop returns with (PROTO_LOAD): loaded beside the ones before, which
     * stay (CUDA code is never unloaded), the new one's loop serving from then on. The filter
     * allows each such load as it did the first; the object must be in the worker's view
     * (the harness made the labs' reference objects visible to the reference's worker). */
    static char next[PROTO_OBJECT_MAX];
    const char *object = argv[1]; /* (its path whole, however long) */
    for (int loads = 0;; loads++, object = next) {
        void *so = dlopen(object, RTLD_NOW | RTLD_LOCAL);
        if (!so) {
            fprintf(stderr, "worker: cannot load %s: %s\n", object, dlerror());
            return 2;
        }
        int (*serve)(int, char *, size_t) =
            (int (*)(int, char *, size_t))dlsym(so, "shim_serve");
        if (!serve) {
            fprintf(stderr, "worker: %s has no shim_serve\n", object);
            return 2;
        }
        if (loads > 0 && answer_loaded(sock) != 0)
            return 1;
        const int status = serve(sock, next, sizeof next);
        if (status != PROTO_SERVE_LOAD)
            return status;
    }
}
