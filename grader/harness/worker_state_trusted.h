/* worker_state_trusted.h - TRUSTED SIDE: what the worker_*_trusted.cu files share with each
 * other and with no other file: the workers, the buffers shared with them, and the few
 * functions one of these files lends the others. The harness's interface is worker_trusted.h.
 *
 *   worker_lifecycle_trusted.cu  starting (sandboxed), stopping, killing and reaping workers,
 *                                the failure jump, each check's time and log, isolation
 *   worker_buffers_trusted.cu    memory shared with workers: finding it, giving it back
 *                                (every worker unmapping it, one message a batch), host
 *                                memory (memfds, pinned)
 *   worker_regions_trusted.cu    device memory shared with workers, in regions (CUDA
 *                                virtual-memory handles, the emulator's memfds), and the
 *                                correctness checks' host region
 *   worker_protocol_trusted.cu   commands and replies over the socket: round trips, batching
 *   worker_idle_trusted.cu       empty-kernel probes: is the GPU idle after a call
 *
 * Everything here is hidden from the dynamic symbol table (the emulator's harness exports its
 * symbols to the objects it loads). */
#ifndef GRADER_WORKER_STATE_TRUSTED_H
#define GRADER_WORKER_STATE_TRUSTED_H

#include "harness.h"
#include "../wire/costs.h"
#include "../wire/proto.h"
#include "../worker/shim.h"
#include "worker_trusted.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/types.h>

#define WORKER_INTERNAL __attribute__((visibility("hidden")))

#define MAX_IMPLS (IMPL_EXTRA + 16)
#define MAX_SHARED 2048

/* A buffer the harness may hand to workers. */
typedef struct shared_buf {
    char *base;       /* harness address; NULL for a free slot */
    size_t bytes;     /* size */
    uint32_t id;      /* never reused */
    int host;         /* 1: host memory backed by memfd `fd` */
    int fd;           /* host: the memfd; device: the exported allocation (GPU: the VMM
                         export; emulator: its memfd), -1 when not shared */
    unsigned long long vmm; /* device (GPU): the CUmemGenericAllocationHandle */
    unsigned mapped;  /* bit i: worker slot i has mapped it */
} shared_buf;

/* A pipe of student output whose bytes go into the current check's log, capped: moved by a
 * thread of its own while the code runs (a writer never blocks on a full pipe), and by the
 * harness itself when the check ends or the writers are gone, so that every byte written
 * before then lands in the log of that check. */
struct worker_pool;
typedef struct output_relay {
    struct worker_pool *pool; /* whose log it writes into (its thread's argument is the relay) */
    int running;      /* 1 between relay_start and relay_stop; the fields below only then */
    int fd;           /* the pipe's read end (non-blocking) */
    int wake;         /* eventfd: tells the thread to stop */
    pthread_t thread; /* the thread that moves bytes while the writers run */
} output_relay;

/* One worker process (isolated mode) or loaded object (fallback). */
typedef struct worker {
    char so[4096];     /* the shared object (absolute) */
    pid_t pid;         /* running process, 0 if none */
    int sock;          /* command socket */
    output_relay out;  /* its stdout/stderr pipe, into the check's log */
    void *dl;          /* fallback: dlopen handle */
    void (*call)(int, const shim_arg *, int, cudaStream_t, char *, size_t); /* fallback */
    proto_cmd batch;   /* queued calls (inside a batch) */
    int pending_fds[PROTO_MAX_BUFS];
    int n_pending_fds;
    char scratch[4096]; /* its scratch folder where there are no namespaces, or "" */
    int answered;      /* 1 once the process answered a command: it started, and what ends
                          it from then on is the code it loaded */
    pid_t group;       /* its process group (its sandbox's processes), 0 if none */
    int ready_fd;      /* read end of the pipe the worker writes a byte to once its start-up
                          is over (worker_untrusted.c), -1 once read or waited for */
    int sent;          /* 1 once a command was sent to the process: it is no longer fresh */
    int report_fd;     /* read end (non-blocking) of the CPU emulator's own channel for its
                          fault reports (fd 5 in the worker, CUDA_EMU_REPORT_FD), -1 if none:
                          drained into the check's report file (workers_report_drain) */
    int doubt;         /* 1 once an unmapping it answered with an error (or not at all: it is
                          then ended): the reference's worker is then not kept for the next
                          lab (workers_lab_end) */
} worker;

/* What the harness's seconds went to in the driver's process and memory calls (the NVIDIA
 * driver does these one at a time host-wide: a batch on several GPUs queues on them), summed
 * over the run; with GRADER_COSTS=1 written to the harness's log after each check (the driver
 * ends a harness with a signal, so never at its end: workers_costs_report). */
enum {
    COST_START,      /* a worker's process started (fork, sandbox, exec; its CUDA start-up
                        runs in the child, beside the harness) */
    COST_READY,      /* waited for a started worker to say its start-up is over */
    COST_END,        /* a worker ended: killed, reaped, its sandbox gone (its context torn down) */
    COST_DEV_MAKE,   /* device memory made and exported for the workers */
    COST_DEV_FREE,   /* device memory given back, the workers' unmapping of it included */
    COST_HOST_MAKE,  /* shared host memory made and pinned (on a reservation's thread too) */
    COST_HOST_FREE,  /* shared host memory given back, the workers' unmapping included */
    COST_HELLO,      /* a fresh worker's first command, an empty one (timed here): what is
                        left of its GPU context's making (it reads no command before), its
                        object loaded, a first launch; mostly the context (tests/gpu/hello.sh) */
    COST_WORKER_MAP, /* buffers the workers mapped on their first use (a call's), and the
                        seconds: the workers' own account (proto_reply), counted, never believed */
    COST_FORGET,     /* messages that had a worker unmap buffers (PROTO_FORGET round trips) */
    COST_N
};
typedef struct worker_costs {
    pthread_mutex_t lock;
    double seconds[COST_N];
    int count[COST_N];
} worker_costs;

/* All workers of this harness, and what they share. */
typedef struct worker_pool {
    char exe[4096];          /* worker_untrusted binary (absolute) */
    const sandbox_places *hidden; /* what no worker may see, by name (workers_hide), or NULL */
    int isolated;            /* 1: processes; 0: fallback */
    int inprocess;           /* 1: calls go to objects loaded here (fallback, or bench) */
    int host_node;           /* the host's NUMA node nearest the GPU, where shared host memory
                                is made (device_host_numa_node); -1: wherever it is touched */
    worker w[MAX_IMPLS];
    shared_buf buf[MAX_SHARED];
    uint32_t next_id;
    int in_batch;
    jmp_buf *fail_jump;
    worker_failure *fail;
    double deadline;         /* wall_seconds() by which the current check must end */
    pthread_mutex_t log_lock;
    int log_fd;              /* the current check's log */
    int report_fd;           /* the current check's file of the emulator's fault reports
                                (<log>.report, beside the log: what its channel said), or -1 */
    long long report_kept;
    long long log_kept, log_dropped;
    output_relay here;       /* fallback: this process's own stdout/stderr during a check
                                (the implementations print here), relayed like a worker's */
    int saved_out, saved_err; /* fallback: fds 1 and 2 of the harness, put back after it */
    int death_status;        /* exit status of the worker worker_describe_death just reaped,
                                -1 if it did not exit (the next worker_fail reports it) */
    worker_costs costs;      /* see COST_START */
    int retiring;            /* 1 inside a free batch (workers_free_begin): buffers given back
                                wait in retired[] for its end, unmapped together */
    int n_retired;
    shared_buf *retired[MAX_SHARED];
} worker_pool;

/* The one pool is file-local to worker_lifecycle_trusted.cu: its functions hand it to the
 * other worker_*_trusted.cu files' as `pool`, and the harness's interface (worker_trusted.h)
 * reaches those through one-line functions there. */

/* worker_lifecycle_trusted.cu */

/* Seconds since `since` (wall_seconds) added to cost `what` (any thread). */
void worker_cost_add(int what, double since) WORKER_INTERNAL;
/* Adds a worker's own account (count and seconds) to `what`, where it could be true. */
void worker_cost_put(int what, int count, double seconds) WORKER_INTERNAL;

/* Record a worker's failure in the current check's worker_failure, kill the worker, and jump
 * to the check's failure target (fatal outside a check). */
void worker_fail(int impl, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn)) WORKER_INTERNAL;
/* impl, checked to name a worker slot (fatal if not). */
int worker_slot(int impl) WORKER_INTERNAL;
/* Start implementation impl's worker process, sandboxed, with its output relayed. */
void worker_start(int impl) WORKER_INTERNAL;
/* A signal to a worker and every process of its sandbox. */
void worker_signal(const worker *w, int sig) WORKER_INTERNAL;
/* Bytes a worker keeps in its scratch folder (0 with namespaces: it has none). */
long long worker_scratch_bytes(const worker *w) WORKER_INTERNAL;
/* The CPU emulator's channel for its fault reports (worker_report_trusted.cu), under
 * pool->log_lock: a check's <log>.report opened (emulated builds, a check's log, workers in
 * processes), what worker w's channel holds moved into it (16 KB a check at most), and the
 * file closed with every worker's drained. */
void workers_report_begin(worker_pool *pool, const char *log_path) WORKER_INTERNAL;
void worker_report_drain(worker_pool *pool, worker *w) WORKER_INTERNAL;
void workers_report_end(worker_pool *pool) WORKER_INTERNAL;
/* Load implementation impl's object into this process (the fallback, and the bench). */
void worker_load_here(int impl) WORKER_INTERNAL;
/* Why worker impl's process ended, for the report; reaps it. *sig: the signal, 0 if it
 * exited, -1 if it could not start. */
void worker_describe_death(int impl, char *buf, size_t len, int *sig) WORKER_INTERNAL;

/* worker_relay_trusted.cu */

/* Start relaying fd (a pipe's read end, made non-blocking) into the check's log, on a thread
 * of its own; stop it, draining what is left; drain what is there now (to_end: until the
 * pipe ends), under pool->log_lock. */
void relay_start(worker_pool *pool, output_relay *r, int fd) WORKER_INTERNAL;
void relay_stop(worker_pool *pool, output_relay *r) WORKER_INTERNAL;
void relay_drain(worker_pool *pool, output_relay *r, int to_end) WORKER_INTERNAL;
/* The fallback: this process's stdout and stderr relayed into the check's log from a check's
 * begin to its end (the implementations print here), rescued on a fatal signal. */
void here_capture_begin(worker_pool *pool) WORKER_INTERNAL;
void here_capture_end(worker_pool *pool) WORKER_INTERNAL;

/* worker_buffers_trusted.cu */

/* The shared buffer that holds address p, or NULL. */
shared_buf *shared_find(worker_pool *pool, const void *p) WORKER_INTERNAL;
/* A new shared buffer at base (its fd -1: the caller sets it). */
shared_buf *shared_new(worker_pool *pool, void *base, size_t bytes) WORKER_INTERNAL;
/* b given back: every worker that mapped it unmaps it (one message a worker for all the
 * buffers of a free batch, at its end; now outside one), then its memory goes and its slot. */
void shared_retire(worker_pool *pool, shared_buf *b) WORKER_INTERNAL;
/* Shared host memory of `bytes` (pinned) registered as a shared buffer, for a region:
 * cudaSuccess, or cudaErrorMemoryAllocation with nothing kept. */
cudaError_t host_region_make(worker_pool *pool, size_t bytes, shared_buf **made) WORKER_INTERNAL;
/* What worker_trusted.h's functions of the same names after workers_ do, on `pool`. */
int pool_reclaim_memory(worker_pool *pool, memory_reclaim *m) WORKER_INTERNAL;
void pool_unregister(worker_pool *pool, void *base) WORKER_INTERNAL;
void pool_free_batch(worker_pool *pool, int begin) WORKER_INTERNAL;
void pool_host_reserve(worker_pool *pool, size_t bytes) WORKER_INTERNAL;
void pool_host_reserve_made(worker_pool *pool) WORKER_INTERNAL;
int pool_lab_memory_end(worker_pool *pool) WORKER_INTERNAL;
void *pool_host_alloc(worker_pool *pool, size_t bytes) WORKER_INTERNAL;
void pool_host_free(worker_pool *pool, void *p) WORKER_INTERNAL;

/* worker_regions_trusted.cu */

/* What worker_trusted.h's functions of the same names after workers_ do, on `pool`. */
cudaError_t pool_try_device_alloc(worker_pool *pool, size_t bytes, void **out) WORKER_INTERNAL;
void *pool_device_alloc(worker_pool *pool, size_t bytes) WORKER_INTERNAL;
void pool_device_free(worker_pool *pool, void *p) WORKER_INTERNAL;
void pool_device_speed_begin(worker_pool *pool, size_t first_bytes) WORKER_INTERNAL;
size_t pool_device_speed_slack(worker_pool *pool) WORKER_INTERNAL;
void pool_device_speed_more(worker_pool *pool, int problems) WORKER_INTERNAL;
void pool_regions_drain(worker_pool *pool) WORKER_INTERNAL;
/* Device memory of a shared buffer given back (its workers have unmapped it). */
void device_release(shared_buf *b) WORKER_INTERNAL;
/* A correctness check's host buffer: 1 with *p a piece of the lab's host region, 0 where it
 * is none (a speed check's, or no region could be made: the caller makes it alone); and 1
 * when p was such a piece, given back (zeroed). */
int host_piece_take(worker_pool *pool, size_t bytes, void **p) WORKER_INTERNAL;
int host_piece_give(worker_pool *pool, void *p) WORKER_INTERNAL;

/* worker_protocol_trusted.cu */

/* Round trip of one command with a time limit (starting the worker first if it is not
 * running); the reply is checked, never trusted. */
void worker_exchange(worker_pool *pool, int impl, proto_cmd *c, const int *fds, int n_fds,
                     proto_reply *r) WORKER_INTERNAL;
/* What worker_trusted.h's functions of the same names after workers_ do, on `pool`. */
void pool_call(worker_pool *pool, int impl, cudaStream_t s, int entry, const char *fmt, va_list ap)
    WORKER_INTERNAL;
void pool_batch_begin(worker_pool *pool) WORKER_INTERNAL;
void pool_batch_end(worker_pool *pool) WORKER_INTERNAL;
void pool_count_begin(worker_pool *pool, int impl, int fd) WORKER_INTERNAL;
void pool_count_end(worker_pool *pool, int impl) WORKER_INTERNAL;
/* How one exchange with a worker went (worker_command). */
typedef enum exchange_status {
    EXCHANGE_OK,
    EXCHANGE_UNSENT,    /* it stopped reading its commands */
    EXCHANGE_NO_ANSWER, /* no whole reply by the time given */
    EXCHANGE_ENDED      /* its end of the socket closed: it ended */
} exchange_status;
/* Command c (with fds) to worker w, and its whole reply into r by `until` (wall_seconds), the
 * worker let run meanwhile and stopped again once it answered: the one exchange every command
 * goes through (a call's, a lab's load, an unmapping). Whether the reply says the command went
 * well is the caller's to read. */
exchange_status worker_command(worker *w, const proto_cmd *c, const int *fds, int n_fds,
                               proto_reply *r, double until) WORKER_INTERNAL;
/* The reference's worker (IMPL_REFERENCE, and no other: fatal), kept from a lab before, told to
 * load its object w->so (PROTO_LOAD) within `seconds`, outside any check: 0 when it answered
 * that it did; -1 on any doubt (no answer, an error, a process gone), the caller then ends it. */
int worker_load(worker_pool *pool, int impl, double seconds) WORKER_INTERNAL;

/* worker_idle_trusted.cu */

/* The round trip of an empty kernel on an idle GPU (seconds), measured once. */
double worker_idle_probe_s(cudaStream_t s) WORKER_INTERNAL;
/* What worker_trusted.h's functions of the same names after workers_ do, on `pool`. */
int pool_note_gpu_state(worker_pool *pool, cudaStream_t s) WORKER_INTERNAL;
double pool_wait_idle(worker_pool *pool, int impl, cudaStream_t s) WORKER_INTERNAL;
void pool_null_call(worker_pool *pool, int impl, cudaStream_t s) WORKER_INTERNAL;

#endif
