/* worker_trusted.h - TRUSTED SIDE: the harness's view of its worker processes.
 *
 * Each implementation a lab times or checks (the student's file, the reference) lives in a
 * shared object: the implementation plus the lab's shim (grader/labs/NN-name/shim_untrusted.cu). By default each one
 * runs in a worker process of its own (grader/worker/worker_untrusted.c), sandboxed: a read-only
 * mount namespace, no capabilities, rlimits, a seccomp filter, stopped (SIGSTOP) whenever
 * the harness is not waiting for it, its output capped. The harness shares buffers with it
 * and sends it calls (proto.h); nothing it says is trusted beyond "the call came back".
 *
 * Where the machine cannot isolate (no CUDA IPC, as on WSL2, or no namespaces), the shared
 * objects are loaded into the harness itself and called through the same shims: grading
 * works, and every record says it is not tamper-proof.
 *
 * Implemented by one file per concern (worker_state_trusted.h lists them and what they share):
 * worker_lifecycle_trusted.cu, worker_buffers_trusted.cu, worker_regions_trusted.cu,
 * worker_protocol_trusted.cu and worker_idle_trusted.cu. */
#ifndef GRADER_WORKER_TRUSTED_H
#define GRADER_WORKER_TRUSTED_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cuda_runtime.h>
#include "../sandbox/sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WORKER_LOG_CAP (1 << 20) /* bytes of a worker's output kept per check */
/* A worker's sandbox, its view and its limits, is grader/sandbox/sandbox.h's sandbox_worker_policy. */

/* What happened to the worker during the check that is failing (set before longjmp). */
typedef struct worker_failure {
    int impl;            /* IMPL_STUDENT or IMPL_REFERENCE */
    int kind;            /* WORKER_FAIL_* */
    int signal;          /* the signal that ended it (WORKER_FAIL_CRASH), 0 if it exited */
    int exit_status;     /* its exit status, if it exited */
    char cuda_name[64];  /* WORKER_FAIL_CUDA: the CUDA error's name */
    char detail[256];    /* one line for the report */
} worker_failure;

enum {
    WORKER_FAIL_CUDA = 1, /* a CUDA error came back from the call */
    WORKER_FAIL_CRASH,    /* the process died (signal, exit, bad reply) */
    WORKER_FAIL_HANG,     /* no reply within the check's time */
    WORKER_FAIL_START     /* it ended before its first answer: the machine, or code it loaded
                           * that runs at start-up (the harness checks which: reference_ran) */
};

/* Start-up: where the pieces are, and whether to isolate. `student_so` / `reference_so` may
 * be NULL (bench variants are given later). Decides isolation (probing the machine when
 * `isolate` is 1) and returns 1 if workers are isolated, 0 if the fallback is in force, with
 * `why` saying why. */
int workers_init(const char *worker_exe, const char *student_so, const char *reference_so,
                 int isolate, char *why, size_t why_len);
/* What no worker may see, by name (the checkout, the build's lab folder, the student objects,
 * the logs, what a batch adds): kept, not copied; before workers_init. */
void workers_hide(const sandbox_places *places);
/* The round trip of an empty kernel on an idle GPU, the yardstick of every idle probe:
 * measured once, while nothing else runs on the GPU (no worker of this harness has run a call,
 * and no other harness of the run is at work). */
void workers_idle_baseline(void);
/* The shared object of implementation `impl` (IMPL_EXTRA + k for bench variants). */
void workers_set_so(int impl, const char *so);
/* Where a failing call jumps to (the current check's setjmp), and where its story goes. */
void workers_set_failure_target(jmp_buf *jb, worker_failure *f);
/* Per check: the time left for calls (seconds) and where the workers' output goes. */
void workers_begin_check(double seconds, const char *log_path);
void workers_end_check(void);
/* Stop (kill) implementation impl's worker; the next call starts a fresh one. */
void workers_kill(int impl);
/* Start implementation impl's worker now, ahead of its first call, if none runs (isolated
 * workers only, and unless GRADER_SPARES=0): its start-up (the process, its sandbox, its GPU
 * context) overlaps whatever the harness does meanwhile. It loads no code of the
 * implementation, and runs none, before its first call (worker_untrusted.c): a spare holds
 * nothing of the student's until then. The harness calls it only where nothing is timed: the
 * reference's worker while the correctness checks run, a speed check's fresh student process
 * once the check before it has answered (speed_instances waits for it to be ready before it
 * reads the free memory, and so before any round). A context made beside timed work moves
 * its times (tests/gpu/results/h200-spares.txt: a 1 GiB copy's 95th percentile 25% slower
 * while contexts were made beside it). */
void workers_prewarm(int impl);
/* 1 when GRADER_PREWARM=1 is in the environment: lab 05's pinned memory made ahead of its use,
 * on another thread (workers_host_reserve); 0 otherwise. Off by default, as measured on an H200
 * (tests/gpu/results/h200-speed-branch.txt): with it, lab 05's speed check needed 39-55 rounds
 * instead of 16 in three of five gradings (pinned memory made on another thread, whose pages
 * may lie on the other socket, is a working guess). */
int workers_ahead(void);
/* 1 unless GRADER_SPARES=0 is in the environment: workers_prewarm starts its worker (on by
 * default: on an H200 a batch of 8 graded 172.7 students an hour with spares and 160.2 without,
 * the fresh workers' first commands 0.30 s a student against 3.45, every self-check ratio
 * within 0.98-1.02 and the gradebooks identical: tests/gpu/results/h200-spares.txt). */
int workers_spares(void);
/* A process of impl's that no command has reached yet: a spare (workers_prewarm) is kept,
 * one that has served a call is killed and a spare started in its place. What a phase beside
 * the student begins with: a fresh process, which can tell nothing of what came before. */
void workers_fresh(int impl);
/* Wait (at most `seconds` in all) until every worker still starting is done starting: before
 * the harness reads the device's free memory, which a context being made would change. */
void workers_wait_ready(double seconds);
void workers_shutdown(void);
/* A lab's end in a harness that serves several: every worker ended but the reference's, which
 * workers_lab_keep keeps for the next lab when it is healthy (it runs trusted code alone;
 * the next lab's workers_set_so has it load that lab's object: grader/harness/README.md, "One
 * harness, many labs"). */
void workers_lab_end(void);
/* Seconds the reference's worker kept from a lab before has to load the next lab's object. */
#define WORKER_LOAD_S 10.0
/* One line to fd: the seconds this harness spent so far (after check `check`) starting, waiting
 * for and ending workers and making and giving back shared memory (the driver's calls, which a
 * batch on several GPUs queues on). */
void workers_costs_report(int fd, int check);
/* Those seconds set to zero (a lab's end: each lab's log holds its own). */
void workers_costs_reset(void);
/* A lab's end, its workers ended (workers_lab_end): the regions of its shared memory given back
 * (unmapped in the reference's worker where it is kept) and the arenas as at the start; returns
 * how many shared buffers are still held (0: none, as it should be). */
int workers_lab_memory_end(void);
/* Then: the reference's worker ended unless it is alive, answered every unmapping without an
 * error and maps nothing of the harness's (kept for the next lab). */
void workers_lab_keep(void);
/* 1 when implementations run in sandboxed processes. */
int workers_isolated(void);
/* Bench only: 1 sends calls to the implementations loaded into this process (their CUDA
 * events can then time them), 0 back to the workers. */
void workers_force_inprocess(int on);
/* 1 when calls run in this process (the fallback, or forced for the bench). */
int workers_inprocess(void);

/* make explain, under the CPU emulator: the emulator in implementation impl's worker counts
 * what its calls run from workers_count_begin to workers_count_end, and writes it to `fd`
 * (passed to the worker; the caller keeps its own copy and reads what was written as data:
 * a process that holds student code wrote it). Isolated workers only. */
void workers_count_begin(int impl, int fd);
void workers_count_end(int impl);

/* Device memory the workers may be given (dbuf's allocator in the harness): a piece of a region
 * (worker_regions_trusted.cu), which a worker maps the first time a call names a buffer in it and
 * unmaps before the region is given back; zeroed when freed. */
void *workers_device_alloc(size_t bytes);
/* The same, but out of device memory is an answer, not the end: cudaErrorMemoryAllocation
 * (with *p NULL) or cudaSuccess; any other failure ends the process as CUDA_CHECK does. */
cudaError_t workers_try_device_alloc(size_t bytes, void **p);
/* A speed check's problems, made from workers_device_speed_begin to workers_device_speed_end:
 * the first in a region sized by `first_bytes` (the lab's footprint of one problem: the
 * buffers' bytes; the region adds their rounding and guards), the later ones in one region
 * workers_device_speed_more makes, `problems` times the first's pieces; both regions given back
 * with the problems (worker_regions_trusted.cu says why). workers_device_speed_slack: the bytes
 * of those regions no piece holds (what the free memory lost beyond the problems' buffers). */
void workers_device_speed_begin(size_t first_bytes);
size_t workers_device_speed_slack(void);
void workers_device_speed_more(int problems);
void workers_device_speed_end(void);
/* 1: the device buffers made until 0 are the harness's own, in no region and no worker's
 * (buffers never handed to a worker: harness_device_private). */
void workers_device_private(int on);
/* Give back the correctness checks' regions when they hold nothing (before the free memory is
 * read to size a speed check's problems). */
void workers_regions_drain(void);
/* Buffers freed from workers_free_begin to workers_free_end are unmapped by each worker in one
 * message at the end (and their memory then given back), not one a buffer. */
void workers_free_begin(void);
void workers_free_end(void);
/* After the grader (the harness, or the reference's worker) ran short of device memory: end
 * the student's worker, if one runs, and wait until the device has its memory back. What
 * that showed, for the driver to judge whose fault the shortage was: */
typedef struct memory_reclaim {
    int student_ended;   /* 1 if a student's worker was running and was ended */
    size_t free_before;  /* free device memory before it was ended (bytes) */
    size_t free_after;   /* and after (the same when none ran) */
    size_t total;        /* the device's memory */
} memory_reclaim;
/* 0, or -1 when the device could not say (a broken context): m is then all zero. */
int workers_reclaim_memory(memory_reclaim *m);
void workers_device_free(void *p);
void workers_unregister(void *base);
/* Host memory shared with workers (pinned in every process that maps it); free with
 * workers_host_free. */
void *workers_host_alloc(size_t bytes);
void workers_host_free(void *p);
/* Ask for `bytes` of that memory ahead of its use (isolated workers only; at most four
 * arrays): the first workers_host_alloc of exactly that size takes it. The arrays asked for
 * are made together, their pages in turn, so that none copies faster than another for where
 * its pages lie (worker_buffers_trusted.cu's host_fill), once workers_host_reserve_made is
 * called: on a thread of its own where GRADER_PREWARM=1 (pinning a gigabyte takes a good part
 * of a second, which the correctness checks before a speed check then hide), else at the first
 * allocation that takes one of them. What no allocation took is given back by
 * workers_host_reserved_end. */
void workers_host_reserve(size_t bytes);
void workers_host_reserve_made(void);
void workers_host_reserved_end(void);

/* Call entry point `entry` of implementation `impl`; see harness_call in harness.h. */
void workers_call(int impl, cudaStream_t s, int entry, const char *fmt, va_list ap);
/* Under the CPU emulator, the order the grids of the calls to come run in (the order of a
 * block's warps and of a grid's blocks: cuda_emu/schedule.h); 0, index order. Ignored on a
 * GPU, whose order is its own. */
void workers_set_schedule(uint64_t word);
/* Inside a batch, calls of one implementation are queued and sent as one command at
 * workers_batch_end (a timed unit of several calls costs one round trip). */
void workers_batch_begin(void);
void workers_batch_end(void);
/* One empty kernel through the path of implementation `impl`: the path's own cost. */
void workers_null_call(int impl, cudaStream_t s);
/* After a call of implementation `impl`: wait until the GPU is idle (no work left by any
 * worker), so that work a call left running after it answered is billed to it. Returns how
 * long the GPU stayed busy (seconds: from the answer to the first empty kernel that ran at
 * once), 0 when it was idle at the first probe. Still busy WORKERS_IDLE_LIMIT_S seconds later
 * after a student's call: that check fails (as a hang), and the worker is stopped. */
#define WORKERS_IDLE_LIMIT_S 2.0
double workers_wait_idle(int impl, cudaStream_t s);
/* Before a timed sample (untimed): whether the GPU is busy already, with work of no call of
 * this sample (another program on the GPU); returns 1 if it is. workers_wait_idle then blames
 * nobody. */
int workers_note_gpu_state(cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
