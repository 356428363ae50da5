/* harness.cu - TRUSTED PROCESS: main() of a lab's harness. It owns the device buffers, the
 * inputs, the expected outputs, verification and timing, and never loads student code
 * (where the machine can isolate; see worker_trusted.h for the fallback).
 *
 *   harness --serve  --worker EXE --student SO --reference SO [--isolation on|off]
 *   harness --bench  --worker EXE --reference SO --results FILE --variant NAME=SO ...
 *                    [--cap SECONDS]
 *
 * --serve: the driver writes one command per line on stdin,
 *     check N SEED THRESHOLD CAP_SECONDS TIMEOUT_SECONDS RECORDS_PATH LOG_PATH
 * and the harness runs check N of the lab's table, writes its records (records.h) to
 * RECORDS_PATH, what the workers printed to LOG_PATH (capped), and answers "done N" on
 * stdout. The seed reaches no other process. The student's and the reference's workers live
 * across the lab's checks; a crash or a hang fails that check and restarts the worker.
 *
 * --bench: every variant (skeleton, ladder rungs, reference) timed side by side twice, in
 * this process with CUDA events and through the isolated path, plus the ceiling.
 *
 * --profile (make profile on a GPU, make explain under the CPU emulator): each speed problem, yours and the reference called once
 * each in a section a profiler can tell apart, or with --timeline FILE their copies and
 * kernels recorded, or with --counts FILE (make explain, make grade's WHERE line; isolation
 * on) each section counted by the emulator in the implementation's own sandboxed worker and
 * handed back as data (profile_trusted.cu). --list-checks: the lab's checks, one per line (make
 * sanitize runs the correctness ones). */
#include "../wire/check_line.h"
#include "harness.h"
#include "hidden_size.h"
#include "profile_trusted.h"
#include "../wire/proto.h"
#include "../wire/records.h"
#include "../plan/speed_plan.h"
#include "worker_trusted.h"
#include "../../common/buffer.h"
#include "../../common/check.h"
#include "../../common/stats.h"
#include "../../common/timing.h"
#include "../../common/util.h"

#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int harness_device_only;

/* ------------------------------------------------------------------------------------------ */
/* Helpers for the labs' hooks                                                                 */

void harness_check_exact(const dbuf *out, const float *expected, size_t n, float *got,
                         verify_result *v)
{
    dbuf_download(out, got, n * sizeof(float));
    compare_exact_f32(got, expected, n, &v->out);
    v->guard_ok = dbuf_guards_intact(out, &v->guard_at);
}

void harness_check_close(const dbuf *out, const double *expected, const double *scale, size_t n,
                         double tol, double abs_floor, float *got, verify_result *v)
{
    dbuf_download(out, got, n * sizeof(float));
    compare_close_f32(got, expected, scale, n, tol, abs_floor, &v->out);
    v->guard_ok = dbuf_guards_intact(out, &v->guard_at);
}

void harness_check_input(const dbuf *in, const void *host, size_t bytes, verify_result *v)
{
    size_t at = 0;
    if (!dbuf_matches_host(in, host, bytes, &at) && v->input_ok) {
        v->input_ok = 0;
        v->input_at = at;
    }
}

/* Calls go to the workers (worker_trusted.h); what a shim reported is kept per impl. */
static char problems[IMPL_EXTRA + 16][256];

void harness_call(int impl, cudaStream_t s, int entry, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    workers_call(impl, s, entry, fmt, ap);
    va_end(ap);
}

const char *harness_problem(int impl) { return problems[impl]; }
void harness_clear_problem(int impl) { problems[impl][0] = 0; }
void harness_note_problem(int impl, const char *problem)
{
    if (!problems[impl][0])
        snprintf(problems[impl], sizeof problems[impl], "%s", problem);
}

void *harness_host_alloc(size_t bytes) { return workers_host_alloc(bytes); }
static int host_reserve_now; /* 1 while a harness started ahead makes its host memory */
void harness_host_reserve(size_t bytes)
{
    if (host_reserve_now)
        workers_host_reserve_now(bytes);
    else
        workers_host_reserve(bytes);
}
void harness_host_free(void *p) { workers_host_free(p); }


/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                     */

/* ------------------------------------------------------------------------------------------ */
/* Device memory: whose is missing when the grader runs short                                  */

static int memory_reclaimed; /* a `reclaim` record was written in this check */

/* The grader (the harness here, or the reference's worker: `who`) ran short of device memory:
 * end the student's worker, whose allocations count against the same device, and record what
 * that gave back. The driver judges from these figures whose the shortage was (a student's
 * process that held the memory fails the check; the machine's shortage is an error). `needed`:
 * the bytes asked for, 0 if unknown. */
static void emit_reclaim(const char *who, size_t needed)
{
    memory_reclaim m;
    if (workers_reclaim_memory(&m) != 0)
        return; /* the device cannot say: the error stands as it is */
    memory_reclaimed = 1;
    results_begin("reclaim");
    results_str("who", who);
    results_int("needed", (long long)needed);
    results_int("student_ended", m.student_ended);
    results_int("free_before", (long long)m.free_before);
    results_int("free_after", (long long)m.free_after);
    results_int("total", (long long)m.total);
    results_emit();
}

/* dbuf's allocator (every buffer of a problem): short of memory, the student's worker is
 * ended (see emit_reclaim) and the allocation tried once more, so that grading goes on when
 * that was the shortage; the record stays for the driver. */
static void *harness_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (workers_try_device_alloc(bytes, &p) == cudaSuccess)
        return p;
    emit_reclaim("harness", bytes);
    if (workers_try_device_alloc(bytes, &p) == cudaSuccess)
        return p;
    cuda_fail(cudaErrorMemoryAllocation, "allocating a buffer of the check", __FILE__, __LINE__);
}

static void on_cuda_error(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaErrorMemoryAllocation && !memory_reclaimed)
        emit_reclaim("harness", 0);
    char where[512];
    snprintf(where, sizeof where, "%s:%d", file, line);
    results_begin("error");
    results_str("who", "harness");
    results_str("kind", "cuda");
    results_str("name", cudaGetErrorName(err));
    results_str("message", cudaGetErrorString(err));
    results_str("call", call);
    results_str("where", where);
    results_emit();
}

static const char *impl_who(int impl)
{
    return impl == IMPL_STUDENT ? "student" : impl == IMPL_REFERENCE ? "reference" : "variant";
}

/* Whether the reference's process, started as the student's is and in the same sandbox, runs
 * on this machine: one empty call through it (starting it if it is not running). 1 if it
 * answered. */
static int reference_runs_here(cudaStream_t s)
{
    static jmp_buf probe_jump;
    static worker_failure probe_failure;
    workers_set_failure_target(&probe_jump, &probe_failure);
    if (setjmp(probe_jump) != 0)
        return 0;
    workers_null_call(IMPL_REFERENCE, s);
    return 1;
}

/* A failure of the student's process that would say the machine cannot run it (the process
 * ended before it answered the grader's first message, or the call came back with a CUDA error
 * that means "no usable GPU") rests on what that process said or did, and student code ran in
 * it from its first instruction (a global constructor runs before main). So it is checked:
 * `reference_ran` says whether the reference's process runs here, which the driver weighs
 * (grader/decide/verdict.c, decide_process). */
static void emit_worker_failure(const worker_failure *f, cudaStream_t s)
{
    static const char *const kinds[] = {"", "cuda", "crash", "hang", "start"};
    const int claim = f->impl == IMPL_STUDENT &&
                      (f->kind == WORKER_FAIL_START ||
                       (f->kind == WORKER_FAIL_CUDA && cuda_error_is_environment(f->cuda_name)));
    const int reference_ran = claim ? reference_runs_here(s) : -1;
    results_begin("error");
    results_str("who", impl_who(f->impl));
    results_str("kind", kinds[f->kind]);
    if (reference_ran >= 0)
        results_int("reference_ran", reference_ran);
    results_str("name", f->kind == WORKER_FAIL_CUDA ? f->cuda_name : kinds[f->kind]);
    results_str("message", f->detail);
    results_str("call", "your entry point");
    results_str("where", "the worker process");
    if ((f->kind == WORKER_FAIL_CRASH || f->kind == WORKER_FAIL_START) && f->exit_status >= 0)
        results_int("status", f->exit_status);
    results_emit();
}

static void emit_device(const device_info *d, double clock_mhz)
{
    results_begin("device");
    results_str("name", d->name);
    results_int("cc_major", d->cc_major);
    results_int("cc_minor", d->cc_minor);
    results_int("sms", d->sm_count);
    results_int("l2_bytes", (long long)d->l2_bytes);
    results_int("mem_bytes", (long long)d->global_mem_bytes);
    results_int("sm_clock_khz", d->sm_clock_khz);
    results_int("mem_clock_khz", d->mem_clock_khz);
    results_int("mem_bus_bits", d->mem_bus_bits);
    results_int("copy_engines", d->async_engines);
    results_int("ecc", d->ecc);
    results_int("driver", d->driver_version);
    results_int("runtime", d->runtime_version);
    results_int("emulated", d->emulated);
    if (clock_mhz > 0)
        results_num("measured_clock_mhz", clock_mhz);
    results_emit();
}

/* `note`, when not NULL, goes before the comparison's description. */
static void emit_verify(const verify_result *v, const char *impl, const char *note)
{
    char text[512], described[448];
    compare_describe(&v->out, v->cols, described, sizeof described);
    snprintf(text, sizeof text, "%s%s", note ? note : "", described);
    results_begin("correct");
    results_str("impl", impl);
    results_int("n", (long long)v->out.n);
    results_int("bad", (long long)v->out.n_bad);
    if (v->out.n_bad) {
        results_int("first_bad", (long long)v->out.first_bad);
        results_num("got", v->out.got);
        results_num("expected", v->out.expected);
    }
    results_str("detail", text);
    results_int("guard_ok", v->guard_ok);
    if (!v->guard_ok)
        results_int("guard_at", v->guard_at);
    results_int("input_ok", v->input_ok);
    if (!v->input_ok)
        results_int("input_at", (long long)v->input_at);
    results_str("problem", v->problem);
    results_emit();
}


/* ------------------------------------------------------------------------------------------ */
/* Correctness: one call, checked against the CPU's answer                                     */

static void call_and_verify(const lab_task *t, void *p, int impl, cudaStream_t s,
                            verify_result *v)
{
    memset(v, 0, sizeof *v);
    v->input_ok = 1;
    harness_clear_problem(impl);
    t->prepare(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    t->run(p, impl, s);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    t->verify(p, v);
    if (harness_problem(impl)[0] && !v->problem[0])
        snprintf(v->problem, sizeof v->problem, "%s", harness_problem(impl));
}

/* ------------------------------------------------------------------------------------------ */
/* Speed: K problems per timed unit, fresh inputs every round, every output compared          */

#define MAX_INSTANCES PROTO_MAX_CALLS
#define MAX_IO 8
#define V_STUDENT 0
#define V_REFERENCE 1
#define V_NULL 2
#define V_CEILING 3 /* a lab whose ceiling is made of a timed call (ceiling_of_run): timed too */

typedef struct speed_ctx {
    const lab_task *t;          /* the task timed */
    void *inst[MAX_INSTANCES];  /* its problems: one call each per timed unit */
    int k;                      /* how many */
    int k_of[TIMING_MAX_VARIANTS]; /* bench: calls of variant v per timed unit, 0: k (a rung
                                   many times slower than the reference needs fewer calls for
                                   a unit of the same length: make bench's time, not precision) */
    int impl_of[TIMING_MAX_VARIANTS]; /* variant -> implementation (IMPL_NULL: null call) */
    uint64_t seed;              /* fresh inputs of round r come from rng_derive(seed, r) */
    void *saved[MAX_INSTANCES][MAX_IO]; /* outputs of whoever ran first in the round */
    uint64_t in_hash[MAX_INSTANCES * MAX_IO]; /* inputs as refreshed, in unit_inputs' order */
    int pending;                /* the variant whose sample just ran, -1 if none */
    int first;                  /* the first of student/reference to run this round, -1 */
    int compare;                /* 1: compare outputs (grading); 0: bench, time only */
    int failed;                 /* 1 once a timed output or input was wrong */
    verify_result bad;          /* what was wrong, if failed */
    long long compared;         /* timed outputs compared in full */
    int left_running;           /* student's samples after which the GPU was still busy */
    /* What the idle probes saw, per sample of the phase being timed (time_phase): */
    int round;                  /* the round being timed; negative in warm-up rounds */
    int nv;                     /* variants of the phase (row length of the arrays below) */
    int max_rounds;             /* rows of the arrays below */
    double *left_ms;            /* [round * nv + v]: how long the GPU stayed busy after the call
                                   of v answered (ms; 0: idle at once); NULL: not kept */
    unsigned char *busy_before; /* [round * nv + v]: 1 if the GPU was busy before that call */
    int busy_now;               /* the GPU was busy before the sample being timed */
    /* Seconds of a phase's untimed work, by part (make bench-grading's table): fresh inputs
     * and their hashes, poisoned outputs, the checks after a sample (guards, inputs, outputs
     * saved or compared), the idle probes before a sample. */
    double refresh_s, prepare_s, settle_s, probe_s;
} speed_ctx;

static int speed_outputs(speed_ctx *c, int i, lab_output *out, cudaStream_t s)
{
    const int n = c->t->outputs(c->inst[i], out, MAX_IO, s);
    if (n < 1 || n > MAX_IO)
        fatal("lab task %s: outputs() returned %d", c->t->name, n);
    return n;
}

/* Every input of the unit's problems, in order (problem by problem, input by input): its
 * place (`source` first where one is given and use_source is set) and size. Returns how
 * many: c->in_hash holds their hashes in this order. */
static int unit_inputs(const speed_ctx *c, int use_source, const void **place, size_t *bytes)
{
    int m = 0;
    for (int i = 0; i < c->k; i++) {
        lab_input in[MAX_IO];
        const int n = c->t->inputs(c->inst[i], in, MAX_IO);
        for (int j = 0; j < n; j++, m++)
            place[m] = use_source && in[j].source ? in[j].source : in[j].data, bytes[m] = in[j].bytes;
    }
    return m;
}

/* After a sample of the student's: 1, with c->failed and c->bad set, when it wrote past an
 * output (or scratch) buffer's guard or changed an input. */
static int student_wrote_outside(speed_ctx *c, cudaStream_t s)
{
    for (int i = 0; i < c->k; i++) { /* nothing written past an output (or scratch) */
        lab_output out[MAX_IO];
        const int n = speed_outputs(c, i, out, s);
        for (int j = 0; j < n; j++) {
            long long at = 0;
            if (out[j].buf && !dbuf_guards_intact(out[j].buf, &at)) {
                c->failed = 1;
                memset(&c->bad, 0, sizeof c->bad);
                c->bad.out.n = 1;
                c->bad.input_ok = 1;
                c->bad.guard_ok = 0;
                c->bad.guard_at = at;
                return 1;
            }
        }
    }
    /* every input of every problem hashed again, with one wait for the lot */
    const void *place[MAX_INSTANCES * MAX_IO];
    size_t bytes[MAX_INSTANCES * MAX_IO];
    uint64_t now[MAX_INSTANCES * MAX_IO];
    const int m = unit_inputs(c, 0, place, bytes);
    dev_hash_many(place, bytes, m, now, s);
    for (int x = 0; x < m; x++)
        if (now[x] != c->in_hash[x]) {
            c->failed = 1;
            memset(&c->bad, 0, sizeof c->bad);
            c->bad.out.n = 1;
            c->bad.guard_ok = 1;
            c->bad.input_ok = 0;
            c->bad.input_at = 0;
            return 1;
        }
    return 0;
}

/* Untimed, after the sample of `v`: inputs must be unchanged after the student ran, and the
 * first implementation's outputs are saved for comparison with the second's. */
static void settle_sample(speed_ctx *c, int v, cudaStream_t s)
{
    if (c->impl_of[v] == IMPL_NULL || c->impl_of[v] == IMPL_CEILING || !c->compare || c->failed)
        return; /* (the ceiling's call computes no result: nothing of it is compared) */
    if (c->impl_of[v] == IMPL_STUDENT && harness_problem(IMPL_STUDENT)[0]) {
        c->failed = 1; /* a rule the shim saw broken in a timed call */
        memset(&c->bad, 0, sizeof c->bad);
        c->bad.out.n = 1;
        c->bad.guard_ok = c->bad.input_ok = 1;
        snprintf(c->bad.problem, sizeof c->bad.problem, "%s", harness_problem(IMPL_STUDENT));
        return;
    }
    if (c->impl_of[v] == IMPL_STUDENT && student_wrote_outside(c, s))
        return;
    if (c->first < 0) {
        c->first = v;
        for (int i = 0; i < c->k; i++) {
            lab_output out[MAX_IO];
            const int n = speed_outputs(c, i, out, s);
            for (int j = 0; j < n; j++)
                if (out[j].n)
                    CUDA_CHECK(cudaMemcpyAsync(c->saved[i][j], out[j].data, out[j].n * 4,
                                               cudaMemcpyDeviceToDevice, s));
        }
        CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
    /* The second implementation: compare its outputs (live) with the first's (saved). */
    const int student_saved = c->impl_of[c->first] == IMPL_STUDENT;
    for (int i = 0; i < c->k && !c->failed; i++) {
        lab_output out[MAX_IO];
        const int n = speed_outputs(c, i, out, s);
        for (int j = 0; j < n; j++) {
            if (!out[j].n) /* guard-only entry */
                continue;
            dev_compare_result r;
            const void *got = student_saved ? c->saved[i][j] : out[j].data;
            const void *want = student_saved ? out[j].data : c->saved[i][j];
            dev_compare(got, want, out[j].n, out[j].type, out[j].rel, out[j].abs, &r, s);
            c->compared++;
            if (r.n_bad) {
                c->failed = 1;
                memset(&c->bad, 0, sizeof c->bad);
                c->bad.out.n = out[j].n;
                c->bad.out.n_bad = r.n_bad;
                c->bad.out.first_bad = r.first_bad;
                c->bad.out.got = r.got;
                c->bad.out.expected = r.want;
                c->bad.guard_ok = c->bad.input_ok = 1;
                break;
            }
        }
    }
}

static void speed_before_round(void *ctx, int round)
{
    speed_ctx *c = (speed_ctx *)ctx;
    const double at = wall_seconds();
    cudaStream_t s = 0;
    for (int i = 0; i < c->k; i++)
        c->t->refresh(c->inst[i], rng_derive(c->seed, (uint64_t)(round + 1000) * 64 + i), s);
    if (c->compare) { /* (before any call of the round: see lab_input) */
        const void *place[MAX_INSTANCES * MAX_IO];
        size_t bytes[MAX_INSTANCES * MAX_IO];
        dev_hash_many(place, bytes, unit_inputs(c, 1, place, bytes), c->in_hash, s);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    c->pending = -1;
    c->first = -1;
    c->round = round;
    c->refresh_s += wall_seconds() - at;
}

/* Calls of variant v in one timed unit. */
static int calls_of(const speed_ctx *c, int v)
{
    return c->k_of[v] > 0 && c->k_of[v] < c->k ? c->k_of[v] : c->k;
}

static void speed_prepare(void *ctx, int v, cudaStream_t s)
{
    speed_ctx *c = (speed_ctx *)ctx;
    const int k = calls_of(c, v);
    double at = wall_seconds();
    if (c->pending >= 0)
        settle_sample(c, c->pending, s);
    c->settle_s += wall_seconds() - at;
    c->pending = v;
    if (c->impl_of[v] == IMPL_STUDENT)
        harness_clear_problem(IMPL_STUDENT);
#if !defined(CUDA_EMU)
    /* Lines an implementation marked persisting (an access-policy window) would survive
     * from one call to the next: every sample starts from a normal L2. */
    CUDA_CHECK(cudaCtxResetPersistingL2Cache());
#endif
    /* busy already? then what runs after the call is not its own */
    at = wall_seconds();
    c->busy_now = workers_note_gpu_state(s);
    c->probe_s += wall_seconds() - at;
    if (c->impl_of[v] == IMPL_NULL)
        return;
    at = wall_seconds();
    for (int i = 0; i < k; i++)
        c->t->prepare(c->inst[i], c->impl_of[v], s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    c->prepare_s += wall_seconds() - at;
    /* A worker's calls are put together here, untimed; speed_run only sends them. */
    if (c->impl_of[v] != IMPL_CEILING && !workers_inprocess()) {
        workers_batch_begin();
        for (int i = 0; i < k; i++)
            c->t->run(c->inst[i], c->impl_of[v], s);
    }
}

/* After a worker's call, inside the timed region: wait until nothing of any worker runs on
 * the GPU, so work a call left running after it answered "done" is billed to it (the null
 * call and the reference pay the same probe). */
static void speed_settle_gpu(speed_ctx *c, int v, cudaStream_t s)
{
    const double left =
        workers_wait_idle(c->impl_of[v] == IMPL_NULL ? IMPL_REFERENCE : c->impl_of[v], s);
    if (left > 0 && c->impl_of[v] == IMPL_STUDENT)
        c->left_running++;
    if (c->left_ms && c->round >= 0 && c->round < c->max_rounds) {
        c->left_ms[c->round * c->nv + v] = left * 1e3;
        c->busy_before[c->round * c->nv + v] = (unsigned char)c->busy_now;
    }
}

static void speed_run(void *ctx, int v, cudaStream_t s)
{
    speed_ctx *c = (speed_ctx *)ctx;
    if (c->impl_of[v] == IMPL_NULL) {
        workers_null_call(IMPL_REFERENCE, s);
        speed_settle_gpu(c, v, s);
        return;
    }
    if (c->impl_of[v] == IMPL_CEILING) {
        for (int i = 0; i < calls_of(c, v); i++)
            c->t->run(c->inst[i], IMPL_CEILING, s);
        return;
    }
    if (workers_inprocess()) { /* called here, timed by the events around this */
        for (int i = 0; i < calls_of(c, v); i++)
            c->t->run(c->inst[i], c->impl_of[v], s);
        return;
    }
    workers_batch_end(); /* the calls speed_prepare queued: one command, one answer */
    speed_settle_gpu(c, v, s);
}

static void speed_after_round(void *ctx, int round)
{
    (void)round;
    speed_ctx *c = (speed_ctx *)ctx;
    const double at = wall_seconds();
    if (c->pending >= 0)
        settle_sample(c, c->pending, 0);
    c->settle_s += wall_seconds() - at;
    c->pending = -1;
}

/* Make the K problems of a timed unit: enough calls that a unit lasts `unit_ms` at the
 * reference's speed, within the memory budget. */
static void speed_instances(speed_ctx *c, const long long size[LAB_MAX_DIMS], uint64_t seed,
                            const device_info *d, double unit_ms, cudaStream_t s)
{
    size_t free0, free1, total;
    /* (a worker still starting would change the free memory between the two readings) */
    workers_wait_ready(10.0);
    CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    harness_device_only = 1;
    c->inst[0] = c->t->create(size, rng_derive(seed, 0), d);
    CUDA_CHECK(cudaMemGetInfo(&free1, &total));
    size_t per = free0 > free1 ? free0 - free1 : 0;
    c->k = 1;
    speed_before_round(c, -100); /* inputs first: outputs() may read them to size a bound */
    lab_output out[MAX_IO];
    const int n_out = speed_outputs(c, 0, out, s);
    for (int j = 0; j < n_out; j++)
        per += out[j].n * 4;
    /* One call of the reference and one null call through the same path, three times each;
     * the fastest of each (the first pays for module loading). */
    double ref_ms = 1e9, null_ms = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        c->t->prepare(c->inst[0], IMPL_REFERENCE, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = wall_seconds();
        workers_null_call(IMPL_REFERENCE, s);
        null_ms = fmin(null_ms, (wall_seconds() - t0) * 1e3);
        t0 = wall_seconds();
        c->t->run(c->inst[0], IMPL_REFERENCE, s);
        CUDA_CHECK(cudaDeviceSynchronize());
        ref_ms = fmin(ref_ms, (wall_seconds() - t0) * 1e3);
    }
    const double t = fmax(ref_ms - null_ms, 0.25 * ref_ms);
    int k = (int)ceil(unit_ms / (t > 1e-3 ? t : 1e-3));
    const size_t budget = sizing_memory_budget(d);
    if (per > 0 && (size_t)k * per > budget)
        k = (int)(budget / per);
    k = k < 1 ? 1 : k > MAX_INSTANCES ? MAX_INSTANCES : k;
    if (d->emulated)
        k = 1;
    for (int i = 1; i < k; i++)
        c->inst[i] = c->t->create(size, rng_derive(seed, (uint64_t)i), d);
    harness_device_only = 0;
    c->k = k;
    for (int i = 0; i < k; i++) {
        const int n = speed_outputs(c, i, out, s);
        for (int j = 0; j < n; j++)
            if (out[j].n)
                CUDA_CHECK(cudaMalloc(&c->saved[i][j], out[j].n * 4));
    }
}

static void speed_free(speed_ctx *c)
{
    for (int i = 0; i < c->k; i++) {
        for (int j = 0; j < MAX_IO; j++)
            if (c->saved[i][j])
                CUDA_CHECK(cudaFree(c->saved[i][j]));
        if (c->inst[i])
            c->t->destroy(c->inst[i]);
    }
    memset(c->inst, 0, sizeof c->inst);
    memset(c->saved, 0, sizeof c->saved);
    c->k = 0;
}

static double median_of(const timing_result *r, int host_clock, int v)
{
    double *x = (double *)xmalloc(r->rounds * sizeof *x);
    timing_series(r, host_clock, v, x);
    const double m = stats_median(x, r->rounds);
    free(x);
    return m;
}

static const char *stop_name(timing_stop s)
{
    switch (s) {
    case STOP_PRECISE: return "precise";
    case STOP_SOFT_CAP: return "time_cap";
    case STOP_HARD_CAP: return "hard_cap";
    case STOP_MAX_ROUNDS: return "max_rounds";
    case STOP_CLEAR: return "clear";
    default: return "fixed";
    }
}

/* The ceiling's time for one call of this problem: the task's own hook, or the median of 7
 * event-timed calls of IMPL_CEILING in this process (each after an L2 flush). */
static double ceiling_ms(speed_ctx *c, const device_info *d, double clock_mhz, l2_flusher *f,
                         cudaStream_t s)
{
    if (c->t->ceiling_ms)
        return c->t->ceiling_ms(c->inst[0], d, clock_mhz, s);
    speed_ctx one = *c;
    one.k = 1;
    one.compare = 0;
    one.impl_of[0] = IMPL_CEILING;
    timing_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n_variants = 1;
    plan.warmup_rounds = SPEED_CEILING_WARMUP_ROUNDS;
    plan.min_rounds = plan.max_rounds = SPEED_CEILING_ROUNDS;
    plan.ratio_num = plan.ratio_offset = -1;
    plan.hard_cap_s = SPEED_CEILING_CAP_S;
    plan.host_clock = c->t->host_clock;
    timing_result r;
    time_interleaved(&plan, speed_prepare, speed_run, &one, NULL, f, s, &r);
    const double ms = median_of(&r, c->t->host_clock, 0);
    timing_result_free(&r);
    return c->t->ceiling_of_run ? c->t->ceiling_of_run(c->inst[0], d, ms) : ms;
}

/* The fastest the hardware can do the task's work at all, in its unit (0: no such bound): the
 * DRAM's peak bandwidth from its clock and bus width for GB/s, the FP32 FMA peak at the
 * measured SM clock for GFLOP/s. A student faster than this did not do the work as counted
 * (tensor cores in SGEMM, skipped or cached traffic). */
static double physical_bound(const lab_task *t, const device_info *d, double clock_mhz)
{
    if (!strcmp(t->unit, "GB/s"))
        return device_dram_peak_gbps(d);
    if (!strcmp(t->unit, "GFLOP/s"))
        return device_fma_peak_gflops(d, clock_mhz > 0 ? clock_mhz : d->sm_clock_khz / 1e3);
    return 0;
}

typedef struct options {
    int serve, bench, profile, list_checks;
    int no_guards; /* make sanitize: outputs without guard zones, so memcheck sees overruns */
    int ahead;     /* started ahead of its lab: its student process made, then "ready" */
    const char *timeline; /* --profile: record a timeline here instead of profiler sections */
    int emulator_size;    /* --profile: at the problem size the CPU emulator uses (make explain) */
    const char *counts;   /* --profile: the emulator's counts of each section go here, counted in
                             the sandboxed workers (make explain); NULL: profiler sections */
    const char *worker_log; /* --profile: what the workers print goes here (capped), or NULL */
    const char *reference_counts; /* --profile with --counts: the reference's counts kept in
                                     files PREFIX.N.* (profile_reference_cache), or NULL */
    const char *worker, *student_so, *reference_so;
    int isolate;
    double cap_s;
    const char *results; /* bench: where the records go */
    const char *variant_name[16];
    const char *variant_so[16];
    int n_variants;
    sandbox_places hidden; /* what no worker may see, by name (the driver's --checkout ...) */
} options;


/* Time one phase of a speed check under `plan`, keeping what the idle probes saw after every
 * sample (c->left_ms, c->busy_before: free them with phase_free). */
static void time_phase(speed_ctx *c, const timing_plan *plan, cudaStream_t s, timing_result *r)
{
    c->nv = plan->n_variants;
    c->max_rounds = plan->max_rounds;
    c->left_ms = (double *)calloc((size_t)plan->max_rounds * c->nv, sizeof *c->left_ms);
    c->busy_before = (unsigned char *)calloc((size_t)plan->max_rounds * c->nv, 1);
    if (!c->left_ms || !c->busy_before)
        fatal("out of host memory");
    c->round = -1;
    time_interleaved(plan, speed_prepare, speed_run, c, speed_after_round, NULL, s, r);
}

static void phase_free(speed_ctx *c)
{
    free(c->left_ms);
    free(c->busy_before);
    c->left_ms = NULL;
    c->busy_before = NULL;
}

/* One record of `type` per kept round of a phase: for each variant v (its fields prefixed
 * names[v]: "stu", "ref", "null"), its time (host clock, ms), how long the GPU stayed busy
 * after its call answered, and whether it was busy before the call. phase > 0 is recorded. */
static void emit_rounds(const char *type, int phase, const speed_ctx *c, const timing_result *r,
                        const char *const *names)
{
    const int nv = r->n_variants;
    for (int i = 0; i < r->rounds; i++) {
        results_begin(type);
        if (phase > 0)
            results_int("phase", phase);
        for (int v = 0; v < nv; v++) {
            char key[32];
            snprintf(key, sizeof key, "%s_ms", names[v]);
            results_num(key, r->host_ms[i * nv + v]);
            snprintf(key, sizeof key, "%s_left_ms", names[v]);
            results_num(key, c->left_ms ? c->left_ms[i * nv + v] : 0);
            snprintf(key, sizeof key, "%s_busy_before", names[v]);
            results_int(key, c->busy_before ? c->busy_before[i * nv + v] : 0);
        }
        results_emit();
    }
}

/* The reference's slowdown beside the student (phase `beside`, its variants ref_v and null_v)
 * against alone (variants 0 and 1): what the driver computes from the records. */
static double phase_slowdown(const timing_result *beside, int ref_v, int null_v,
                             const timing_result *alone)
{
    const int nb = beside->rounds, na = alone->rounds;
    double *b = (double *)xmalloc((nb + 1) * sizeof *b);
    double *bn = (double *)xmalloc((nb + 1) * sizeof *bn);
    double *a = (double *)xmalloc((na + 1) * sizeof *a);
    double *an = (double *)xmalloc((na + 1) * sizeof *an);
    timing_series(beside, 1, ref_v, b);
    timing_series(beside, 1, null_v, bn);
    timing_series(alone, 1, 0, a);
    timing_series(alone, 1, 1, an);
    const double sd = stats_slowdown(b, bn, nb, a, an, na);
    free(b), free(bn), free(a), free(an);
    return sd;
}

/* The reference alone, the student's process gone (the reference and the null call, 15
 * rounds): records `alone` with `phase`; r gets the times (free with timing_result_free). */
static void time_alone(const speed_ctx *c, const timing_plan *plan, double cap_s, int phase,
                       cudaStream_t s, timing_result *r)
{
    workers_kill(IMPL_STUDENT);
    speed_ctx alone = *c;
    alone.compare = 0;
    alone.impl_of[0] = IMPL_REFERENCE;
    alone.impl_of[1] = IMPL_NULL;
    timing_plan ap = *plan;
    ap.n_variants = 2;
    ap.warmup_rounds = SPEED_ALONE_WARMUP_ROUNDS;
    ap.min_rounds = ap.max_rounds = SPEED_ALONE_ROUNDS;
    ap.ratio_num = ap.ratio_offset = -1;
    ap.threshold = 0;
    ap.hard_cap_s = cap_s;
    time_phase(&alone, &ap, s, r);
    static const char *const names[] = {"ref", "null"};
    emit_rounds("alone", phase, &alone, r, names);
    phase_free(&alone);
}

/* Whether phase 1's ratio (reference time / student time, each less the null call's median,
 * as the stopping rule and the driver compute it) has its whole 95% interval below the pass
 * mark. Then the reference alone measures nothing a verdict could use: beside a process that
 * slowed it, the reference's time is longer and the ratio higher, so the student's true ratio
 * is lower still, a FAIL either way. */
static int ratio_surely_below(const timing_result *r, double threshold)
{
    const int n = r->rounds;
    if (threshold <= 0 || n < 3)
        return 0;
    double *num = (double *)xmalloc(n * sizeof *num);
    double *den = (double *)xmalloc(n * sizeof *den);
    double *off = (double *)xmalloc(n * sizeof *off);
    timing_series(r, 1, V_REFERENCE, num);
    timing_series(r, 1, V_STUDENT, den);
    timing_series(r, 1, V_NULL, off);
    const double o = stats_median(off, n);
    for (int i = 0; i < n; i++) /* (the driver's floor: never below 1% of the time) */
        num[i] = fmax(num[i] - o, 0.01 * num[i]), den[i] = fmax(den[i] - o, 0.01 * den[i]);
    stats_ratios(num, den, n, num);
    double lo, hi;
    stats_median_ci(num, n, &lo, &hi);
    free(num), free(den), free(off);
    return stats_position(lo, hi, threshold) == RATIO_BELOW;
}

/* The `correct` record of a timed phase: the first wrong output, or how many were compared. */
static void emit_timed_verify(speed_ctx *c)
{
    if (!c->failed) { /* every timed output compared in full: the record of that */
        memset(&c->bad, 0, sizeof c->bad);
        c->bad.out.n = (size_t)c->compared;
        c->bad.guard_ok = c->bad.input_ok = 1;
        if (c->compared == 0)
            snprintf(c->bad.problem, sizeof c->bad.problem, "no timed output was compared");
    }
    emit_verify(&c->bad, "student-timed", NULL);
}

static const char *const speed_names[] = {"stu", "ref", "null", "ceil"};

/* Phase 1's plan: the student, the reference and the null call (and a timed ceiling) in
 * interleaved rounds until the ratio's interval is precise or clear of the mark. */
static timing_plan speed_plan(const check_cmd *o, int timed_ceiling)
{
    timing_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n_variants = timed_ceiling ? 4 : 3;
    plan.warmup_rounds = SPEED_WARMUP_ROUNDS;
    plan.min_rounds = SPEED_MIN_ROUNDS;
    plan.max_rounds = SPEED_MAX_ROUNDS;
    plan.soft_cap_s = o->cap_s;
    plan.hard_cap_s = SPEED_HARD_CAP_FACTOR * o->cap_s;
    plan.ratio_num = V_REFERENCE; /* reference time ... */
    plan.ratio_den = V_STUDENT;   /* ... over student time, */
    plan.ratio_offset = V_NULL;   /* each less the path's own cost */
    plan.threshold = o->threshold;
    plan.precision = SPEED_PRECISION;
    plan.host_clock = 1;
    plan.before_round = speed_before_round;
    return plan;
}

/* The reference alone after phase 1 (r), and, when it ran clearly slower beside the student
 * than alone (or GRADER_REMEASURE_SLOWDOWN=1), phase 2: beside a fresh student process and
 * alone again, fixed rounds, no verdict resting on them. Their seconds in *alone_s, *again_s. */
static void reference_alone(speed_ctx *c, const check_cmd *o, const timing_plan *plan,
                            const timing_result *r, cudaStream_t s, double *alone_s,
                            double *again_s)
{
    timing_result alone1;
    double at = wall_seconds();
    time_alone(c, plan, o->cap_s, 1, s, &alone1);
    *alone_s = wall_seconds() - at;
    const double slowdown = phase_slowdown(r, V_REFERENCE, V_NULL, &alone1);
    const char *again = getenv("GRADER_REMEASURE_SLOWDOWN");
    if (slowdown > lab_slowdown_noise(harness_lab) || (again && !strcmp(again, "1"))) {
        timing_plan bp = *plan;
        bp.min_rounds = bp.max_rounds = SPEED_ALONE_ROUNDS;
        bp.ratio_num = bp.ratio_offset = -1; /* fixed rounds: no verdict rests on these */
        bp.threshold = 0;
        bp.hard_cap_s = o->cap_s;
        workers_kill(IMPL_STUDENT);
        c->seed = rng_derive(c->seed, 2); /* inputs of its own: nothing to remember */
        timing_result beside2, alone2;
        at = wall_seconds();
        time_phase(c, &bp, s, &beside2);
        emit_rounds("beside", 2, c, &beside2, speed_names);
        phase_free(c);
        emit_timed_verify(c); /* its outputs are compared as in the first phase */
        if (!c->failed) {
            time_alone(c, plan, o->cap_s, 2, s, &alone2);
            timing_result_free(&alone2);
        }
        timing_result_free(&beside2);
        *again_s = wall_seconds() - at;
    }
    timing_result_free(&alone1);
}

/* A speed check. Phase 1: student, reference and null call interleaved until the ratio is
 * known (records `sample`); then, unless that ratio is surely below the pass mark (see
 * ratio_surely_below), the reference alone (`alone` phase 1). The reference slower
 * beside the student than alone by more than the lab's noise (lab_slowdown_noise) is not
 * evidence of anything once: then both are measured again (`beside` phase 2, `alone` phase
 * 2), so that the driver can compare each time beside with a time alone on either side of it.
 * Every phase beside the student starts with a fresh process of the student's, so nothing in
 * it tells one phase from another. GRADER_REMEASURE_SLOWDOWN=1 in the environment measures
 * again every time (tests/gpu/noise.sh: the spread of honest runs). */
static void run_speed(const check_cmd *o, const lab_task *t, const long long size[LAB_MAX_DIMS],
                      const device_info *d, double clock_mhz, l2_flusher *f, cudaStream_t s,
                      speed_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->seed = rng_derive(o->seed, 5000u + (uint64_t)o->check);
    c->compare = 1;
    c->impl_of[V_STUDENT] = IMPL_STUDENT;
    c->impl_of[V_REFERENCE] = IMPL_REFERENCE;
    c->impl_of[V_NULL] = IMPL_NULL;
    /* A ceiling made of a timed call runs in every round beside the two, so that it sees what
     * they saw (lab 05: PCIe's rate in both directions at once drifts over seconds). */
    const int timed_ceiling = t->ceiling_of_run && !t->ceiling_ms;
    if (timed_ceiling)
        c->impl_of[V_CEILING] = IMPL_CEILING;
    /* Where the check's time goes (seconds of each stage, in the `speed` record: make
     * bench-grading's table; no verdict reads them). */
    double at = wall_seconds();
    double setup_s = 0, phase_s = 0, alone_s = 0, again_s = 0, ceiling_s = 0;
    /* The student's process for phase 1, started now (unless the check before started it):
     * its start-up overlaps the setup, and it holds no student code before phase 1 calls it. */
    workers_fresh(IMPL_STUDENT);
    speed_instances(c, size, c->seed, d, SPEED_UNIT_MS, s);
    setup_s = wall_seconds() - at;
    char desc[256];
    t->describe(c->inst[0], desc, sizeof desc);
    results_begin("case");
    results_str("size", desc);
    results_int("calls_per_unit", c->k);
    results_emit();

    const timing_plan plan = speed_plan(o, timed_ceiling);
    workers_fresh(IMPL_STUDENT); /* a fresh process for the phase (see above) */
    timing_result r;
    at = wall_seconds();
    c->refresh_s = c->prepare_s = c->settle_s = c->probe_s = 0;
    time_phase(c, &plan, s, &r);
    phase_s = wall_seconds() - at;
    const double parts[4] = {c->refresh_s, c->prepare_s, c->settle_s, c->probe_s};
    emit_rounds("sample", 0, c, &r, speed_names);
    const double ceiling_beside =
        timed_ceiling && r.rounds > 0 ? t->ceiling_of_run(c->inst[0], d, median_of(&r, 1, V_CEILING) / c->k) : -1;
    at = wall_seconds();
    phase_free(c);
    emit_timed_verify(c);
    const double verify_s = wall_seconds() - at;
    const timing_stop stop = r.stop;
    const double seconds = r.seconds;

    /* The reference alone (and again, beside and alone, on a slowdown) only where a verdict
     * could rest on it: not once the ratio is surely below the pass mark. */
    if (!c->failed && !ratio_surely_below(&r, o->threshold))
        reference_alone(c, o, &plan, &r, s, &alone_s, &again_s);
    timing_result_free(&r);

    at = wall_seconds();
    const double ceiling = ceiling_beside > 0 ? ceiling_beside : ceiling_ms(c, d, clock_mhz, f, s);
    ceiling_s = wall_seconds() - at;
    results_begin("speed");
    results_num("work", t->work(c->inst[0]));
    results_str("unit", t->unit);
    results_str("ceiling", t->ceiling);
    results_num("ceiling_ms", ceiling);
    results_num("bound_rate", physical_bound(t, d, clock_mhz));
    results_int("calls_per_unit", c->k);
    results_str("stop", stop_name(stop));
    results_num("seconds", seconds);
    results_int("reverified", (long long)c->compared);
    results_int("left_running", c->left_running);
    results_num("setup_s", setup_s);
    results_num("phase_s", phase_s);
    results_num("alone_s", alone_s);
    results_num("again_s", again_s);
    results_num("ceiling_s", ceiling_s);
    results_num("verify_s", verify_s);
    results_num("refresh_s", parts[0]); /* phase 1's untimed work, by part (speed_ctx) */
    results_num("prepare_s", parts[1]);
    results_num("settle_s", parts[2]);
    results_num("probe_s", parts[3]);
    results_emit();
}

/* ------------------------------------------------------------------------------------------ */
/* One check                                                                                   */

static void sizes_for(const lab_check *c, const lab_task *t, int index, uint64_t seed,
                      const device_info *d, long long size[LAB_MAX_DIMS])
{
    memcpy(size, c->size, sizeof c->size);
    if (d->emulated && c->emu_size[0]) /* the same case, at a size the CPU does in seconds */
        memcpy(size, c->emu_size, sizeof c->emu_size);
    if (c->kind == CHECK_HIDDEN) {
        rng r;
        rng_seed(&r, rng_derive(seed, (uint64_t)index));
        t->hidden_size(&r, size);
        if (d->emulated) /* a size the CPU does in seconds, as the visible cases' */
            emu_hidden_size(harness_lab, c, t->hidden_size, &r, size);
    } else if (c->kind == CHECK_SPEED) {
        harness_lab->speed_size(c->task, d, size);
        lab_footprint f;
        harness_lab->footprint(c->task, size, &f);
        if (f.working_set < (double)f.l2_multiple * d->l2_bytes && !d->emulated)
            fprintf(stderr, "note: lab %s: the timed problem touches %.0f MiB, under %dx the L2 "
                    "(%zu MiB) here: the device's memory allows no more\n", harness_lab->name,
                    f.working_set / (1 << 20), f.l2_multiple, d->l2_bytes >> 20);
    }
}

static jmp_buf check_jump;
static int require_isolation; /* --require-isolation: run no student code unsandboxed */

/* Under the CPU emulator the order of a block's warps and of a grid's blocks is the
 * emulator's to choose, and a GPU's is its own: a result that depends on it is wrong. A
 * check's call runs under an order drawn from the run's seed and, where that run was quick
 * (a second order costs a second call, and the few checks with large problems make most of
 * an emulated run's time), again under the same order reversed, on fresh outputs (prepare
 * poisons them again) and against the same expected result: a kernel whose output depends on
 * which warp or block writes last meets both a first and a last writer it did not expect.
 * Checks alternate which of the two orders comes first, so that the large ones, run once,
 * meet both too. Sets *note to what the report says of a second order's failure. */
#define SECOND_ORDER_BUDGET_S 0.1

static int verify_ok(const verify_result *v)
{
    return v->out.n > 0 && v->out.n_bad == 0 && v->guard_ok && v->input_ok && !v->problem[0];
}

static void call_and_verify_orders(const lab_task *t, void *p, const check_cmd *o,
                                   const device_info *d, cudaStream_t s, verify_result *v,
                                   const char **note)
{
    *note = NULL;
    if (!d->emulated) {
        call_and_verify(t, p, IMPL_STUDENT, s, v);
        return;
    }
    const uint64_t word = ((rng_derive(o->seed, 7000u + (uint64_t)o->check) | 2u) & ~(uint64_t)1) |
                          (uint64_t)(o->check & 1);
    workers_set_schedule(word);
    const double start = wall_seconds();
    call_and_verify(t, p, IMPL_STUDENT, s, v);
    if (verify_ok(v) && wall_seconds() - start < SECOND_ORDER_BUDGET_S) {
        workers_set_schedule(word ^ 1);
        call_and_verify(t, p, IMPL_STUDENT, s, v);
        if (!verify_ok(v))
            *note = "right when the CPU emulator ran the warps and blocks in one order, wrong in "
                    "the reverse order (the result depends on which warp or block runs last, "
                    "which no GPU fixes): ";
    }
    workers_set_schedule(0);
}

/* A correctness check: its problem made into *p (the caller's, which frees it however the
 * check ends), described, called and verified. */
static void run_case(const check_cmd *o, const lab_task *t, const long long size[LAB_MAX_DIMS],
                     const device_info *d, cudaStream_t s, void **p)
{
    *p = t->create(size, rng_derive(o->seed, 1000u + (uint64_t)o->check), d);
    char desc[256];
    t->describe(*p, desc, sizeof desc);
    results_begin("case");
    results_str("size", desc);
    results_emit();
    verify_result v;
    const char *note;
    call_and_verify_orders(t, *p, o, d, s, &v, &note);
    emit_verify(&v, "student", note);
}

static void run_check(const check_cmd *o, const device_info *d, const char *isolation_why)
{
    const lab_info *lab = harness_lab;
    const lab_check *c = &lab->checks[o->check];
    const lab_task *t = &harness_tasks[c->task];
    results_begin("begin");
    results_str("lab", lab->name);
    results_int("check", o->check);
    results_emit();
    /* (Whether student code is isolated is said once, in main's greeting: a record written
     * here may follow student code loaded into this process, and labels nothing.) */
    if (require_isolation && !workers_isolated()) { /* not one call of student code */
        results_begin("error");
        results_str("who", "harness");
        results_str("kind", "isolation");
        results_str("name", "no sandbox");
        results_str("message", isolation_why);
        results_emit();
        results_begin("end");
        results_emit();
        return;
    }

    const double check_start = wall_seconds();
    static double tail_start; /* static: survives the longjmp below */
    tail_start = 0;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const double mhz =
        (c->kind == CHECK_SPEED && !d->emulated) ? device_measure_sm_clock_mhz(d, s) : 0.0;
    emit_device(d, mhz);
    long long size[LAB_MAX_DIMS];
    sizes_for(c, t, o->check, o->seed, d, size);

    static void *p;            /* static: survives the longjmp below */
    static speed_ctx sc;
    static worker_failure failure;
    p = NULL;
    memset(&sc, 0, sizeof sc);
    workers_set_failure_target(&check_jump, &failure);
    workers_begin_check(o->timeout_s, o->log);
    memory_reclaimed = 0;
    if (setjmp(check_jump) == 0) {
        if (c->kind == CHECK_SPEED && d->emulated) {
            results_begin("skipped");
            results_str("reason", "CPU emulation: there is no GPU to time");
            results_emit();
        } else if (c->kind == CHECK_SPEED) {
            /* The L2 flush buffer, once for the harness's life: reserved here, before any
             * call of this check, and never again while a student's process runs. */
            static l2_flusher flusher;
            if (!flusher.buf)
                l2_flusher_init(&flusher, d);
            results_begin("head");
            results_num("head_s", wall_seconds() - check_start);
            results_emit();
            run_speed(o, t, size, d, mhz, &flusher, s, &sc);
            tail_start = wall_seconds();
        } else {
            run_case(o, t, size, d, s, &p);
        }
    } else {
        /* The reference's process failed with a CUDA error (or ended by one) while the
         * student's lived beside it: a reference short of memory that the student's process
         * held is the student's doing. What ending it gives back goes to the driver. */
        if (failure.impl == IMPL_REFERENCE &&
            (failure.kind == WORKER_FAIL_CUDA ||
             (failure.kind == WORKER_FAIL_CRASH && failure.exit_status == CUDA_EXIT_STATUS)))
            emit_reclaim("reference", 0);
        emit_worker_failure(&failure, s);
        phase_free(&sc); /* a phase the failure cut short */
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    workers_set_schedule(0);
    workers_end_check();
    if (sc.k)
        speed_free(&sc);
    if (p)
        t->destroy(p);
    CUDA_CHECK(cudaStreamDestroy(s));
    if (tail_start > 0) { /* a speed check's end: its problems and workers freed */
        results_begin("tail");
        results_num("tail_s", wall_seconds() - tail_start);
        results_emit();
    }
    results_begin("end");
    results_emit();
}

/* The host memory of the lab's speed checks from check `from` on (a task's reserve hook: lab
 * 05's pinned arrays), asked for at the size run_check will ask for (sizes_for, the same
 * device); 1 if any was. */
static int reserve_speed_memory(const device_info *d, int from)
{
    const lab_info *lab = harness_lab;
    int any = 0;
    for (int i = from; i < lab->n_checks; i++) {
        const lab_check *ck = &lab->checks[i];
        if (ck->kind != CHECK_SPEED || !harness_tasks[ck->task].reserve)
            continue;
        long long size[LAB_MAX_DIMS];
        memcpy(size, ck->size, sizeof size);
        lab->speed_size(ck->task, d, size);
        harness_tasks[ck->task].reserve(size, d);
        any = 1;
    }
    return any;
}

/* That memory made now, on this thread, by a harness started ahead of its lab, before it says
 * "ready": the lab before is graded meanwhile, so pinning it costs no lab any time, and nothing
 * of it runs beside a timed call. A size that differs at the check (the free memory is read
 * again at the first one) makes its own, as without. */
static int reserved_ahead;
static void reserve_ahead(const device_info *d)
{
    if (d->emulated)
        return;
    host_reserve_now = 1;
    reserved_ahead = reserve_speed_memory(d, 0);
    host_reserve_now = 0;
}

/* After check `done` was answered, while the driver reads the answer: the student's process
 * for the check that follows it in the table, for a speed check a fresh one (its phase 1
 * begins with one; the one that served the correctness checks ends now), for a correctness
 * check one if none runs (a crash ended it). Under the CPU emulator no speed check runs. */
static void prewarm_after(int done, const device_info *d)
{
    const lab_info *lab = harness_lab;
    if (done + 1 >= lab->n_checks)
        return;
    /* Once, after the first check answered, for the speed checks still to come (a GPU only:
     * under the CPU emulator nothing is timed): the reference's worker, which their setup
     * calls first, and their host memory (lab 05's pinned arrays), made on a thread while the
     * correctness checks run, at the size run_check will ask for (sizes_for, the same device). */
    static int ahead_done;
    if (!ahead_done && !d->emulated) {
        for (int i = done + 1; i < lab->n_checks; i++)
            if (lab->checks[i].kind == CHECK_SPEED)
                workers_prewarm(IMPL_REFERENCE);
        if (!reserved_ahead) /* (a harness started ahead made it before its lab began) */
            reserve_speed_memory(d, done + 1);
    }
    ahead_done = 1;
    if (lab->checks[done + 1].kind == CHECK_SPEED) {
        if (!d->emulated)
            workers_fresh(IMPL_STUDENT);
    } else {
        workers_prewarm(IMPL_STUDENT);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Bench: every variant side by side, in this process (events) and isolated (host clock)      */

/* One row of the bench's records: a variant of task t at size desc on a path, its median ms per
 * unit (with its 95% interval) and rate. impl: 1 the reference, 2 the ceiling, -1 the null
 * call, 0 a rung. */
static void bench_emit(const lab_task *t, const char *desc, const char *variant, const char *path,
                       int impl, int calls, double ms, double lo, double hi, double rate,
                       int rounds)
{
    results_begin("bench");
    results_str("task", t->name);
    results_str("size", desc);
    results_str("variant", variant);
    results_str("path", path);
    results_int("impl", impl);
    results_int("calls_per_unit", calls);
    results_num("ms", ms);
    results_num("ms_lo", lo);
    results_num("ms_hi", hi);
    results_num("rate", rate);
    results_str("unit", t->unit);
    results_int("rounds", rounds);
    results_emit();
}

/* One pass of the bench over a speed problem (c: its instances, described by desc): every rung
 * (IMPL_EXTRA + k, skeleton first), the reference, the null call, and in-process the timed
 * ceiling, interleaved, isolated (host clock) or in this process (events); a row each. */
static void bench_pass(const options *o, const device_info *d, const speed_ctx *c,
                       const char *desc, int inproc, cudaStream_t s)
{
    const lab_task *t = c->t;
    int impls[TIMING_MAX_VARIANTS];
    const char *names[TIMING_MAX_VARIANTS];
    int nv = 0;
    for (int v = 0; v < o->n_variants && nv < TIMING_MAX_VARIANTS - 3; v++)
        impls[nv] = IMPL_EXTRA + v, names[nv++] = o->variant_name[v];
    const int ref_v = nv;
    impls[nv] = IMPL_REFERENCE, names[nv++] = "reference";
    const int null_v = nv;
    impls[nv] = IMPL_NULL, names[nv++] = "null call";
    if (!t->ceiling_ms && inproc) /* the ceiling: trusted code, timed in-process */
        impls[nv] = IMPL_CEILING, names[nv++] = t->ceiling;
    static speed_ctx bc;
    bc = *c;
    bc.compare = 0;
    for (int v = 0; v < nv; v++) {
        bc.impl_of[v] = impls[v];
        bc.k_of[v] = impls[v] >= IMPL_EXTRA ? c->k_of[impls[v] - IMPL_EXTRA] : 0;
    }
    timing_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n_variants = nv;
    plan.warmup_rounds = 2;
    plan.min_rounds = 15;
    plan.max_rounds = 200;
    plan.soft_cap_s = plan.hard_cap_s = o->cap_s;
    plan.ratio_num = 0;
    plan.ratio_den = ref_v;
    plan.ratio_offset = inproc ? -1 : null_v;
    plan.precision = 0.01;
    plan.host_clock = !inproc || t->host_clock;
    plan.before_round = speed_before_round;
    timing_result r;
    time_interleaved(&plan, speed_prepare, speed_run, &bc, speed_after_round, NULL, s, &r);
    const double null_ms = inproc ? 0 : median_of(&r, plan.host_clock, null_v);
    for (int v = 0; v < nv; v++) {
        if (v == null_v && inproc)
            continue;
        double *x = (double *)xmalloc(r.rounds * sizeof *x);
        timing_series(&r, plan.host_clock, v, x);
        if (v != null_v)
            for (int q = 0; q < r.rounds; q++)
                x[q] = (x[q] - null_ms) / calls_of(&bc, v);
        double lo, hi;
        double ms = stats_median(x, r.rounds);
        stats_median_ci(x, r.rounds, &lo, &hi);
        free(x);
        if (impls[v] == IMPL_CEILING && t->ceiling_of_run) { /* its timed part, made whole */
            ms = t->ceiling_of_run(c->inst[0], d, ms);
            lo = hi = ms;
        }
        bench_emit(t, desc, names[v], inproc ? "in-process events" : "isolated host clock",
                   impls[v] == IMPL_REFERENCE ? 1 : impls[v] == IMPL_CEILING
                                                      ? 2 : impls[v] == IMPL_NULL ? -1 : 0,
                   calls_of(&bc, v), ms, lo, hi, v == null_v ? 0 : t->work(c->inst[0]) / (ms * 1e6), r.rounds);
    }
    timing_result_free(&r);
}

/* make bench: each rung's calls per timed unit (c->k_of), from the faster of two calls of it
 * through the workers: enough calls for a unit of `unit_ms` at the rung's own speed, as the
 * reference's k gives the reference (at most that k). A rung a hundred times slower than the
 * reference (an SGEMM skeleton) then takes one call a unit, not the reference's k: a unit as
 * long as anyone's is precise enough, and a longer one only costs time. */
static void bench_calls_per_variant(speed_ctx *c, int n_variants, double unit_ms, cudaStream_t s)
{
    double null_ms = 1e9;
    for (int rep = 0; rep < 2; rep++) {
        const double t0 = wall_seconds();
        workers_null_call(IMPL_REFERENCE, s);
        null_ms = fmin(null_ms, (wall_seconds() - t0) * 1e3);
    }
    for (int v = 0; v < n_variants && v < TIMING_MAX_VARIANTS - 3; v++) { /* (bench_pass's) */
        double best = 1e9;
        for (int rep = 0; rep < 2; rep++) { /* (the first also starts the rung's process) */
            c->t->prepare(c->inst[0], IMPL_EXTRA + v, s);
            CUDA_CHECK(cudaDeviceSynchronize());
            const double t0 = wall_seconds();
            c->t->run(c->inst[0], IMPL_EXTRA + v, s);
            CUDA_CHECK(cudaDeviceSynchronize());
            best = fmin(best, (wall_seconds() - t0) * 1e3);
        }
        const double t = fmax(best - null_ms, 0.25 * best);
        const int k = (int)ceil(unit_ms / (t > 1e-3 ? t : 1e-3));
        c->k_of[v] = k < 1 ? 1 : k;
    }
}

static void run_bench(const options *o, const device_info *d)
{
    const lab_info *lab = harness_lab;
    results_begin("begin");
    results_str("lab", lab->name);
    results_str("mode", "bench");
    results_emit();
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const double clock_mhz = d->emulated ? 0.0 : device_measure_sm_clock_mhz(d, s);
    emit_device(d, clock_mhz);
    static worker_failure failure;
    static jmp_buf bench_jump;
    for (int v = 0; v < o->n_variants; v++)
        workers_set_so(IMPL_EXTRA + v, o->variant_so[v]);
    /* Every variant's process starts now, all at once (each a GPU context of its own), rather
     * than one after another at its first call. */
    workers_prewarm(IMPL_REFERENCE);
    for (int v = 0; v < o->n_variants; v++)
        workers_prewarm(IMPL_EXTRA + v);
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *ck = &lab->checks[i];
        if (ck->kind != CHECK_SPEED)
            continue;
        const lab_task *t = &harness_tasks[ck->task];
        long long size[LAB_MAX_DIMS];
        sizes_for(ck, t, i, 1, d, size);
        static speed_ctx c;
        memset(&c, 0, sizeof c);
        c.t = t;
        c.seed = 12345u + (uint64_t)i;
        c.impl_of[0] = IMPL_REFERENCE;
        workers_set_failure_target(&bench_jump, &failure);
        workers_begin_check(1e6, NULL);
        if (setjmp(bench_jump)) {
            fatal("bench: variant %s failed: %s", impl_who(failure.impl), failure.detail);
        }
        speed_instances(&c, size, c.seed, d, SPEED_UNIT_MS, s);
        if (!d->emulated)
            bench_calls_per_variant(&c, o->n_variants, SPEED_UNIT_MS, s);
        char desc[256];
        t->describe(c.inst[0], desc, sizeof desc);
        /* Each variant timed twice: isolated, then in-process (bench_pass). */
        for (int mode = 0; mode < 2; mode++) {
            const int inproc = mode == 1;
            if (!inproc && !workers_isolated())
                continue; /* the fallback has no isolated path: the in-process pass alone */
            workers_force_inprocess(inproc);
            bench_pass(o, d, &c, desc, inproc, s);
        }
        workers_force_inprocess(0);
        if (t->ceiling_ms) { /* a computed or assembled ceiling: one more row */
            const double ms = t->ceiling_ms(c.inst[0], d, clock_mhz, s);
            bench_emit(t, desc, t->ceiling, "computed", 2, 1, ms, ms, ms,
                       t->work(c.inst[0]) / (ms * 1e6), 0);
        }
        workers_end_check();
        speed_free(&c);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    results_begin("end");
    results_emit();
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                        */

static void usage(void)
{
    fprintf(stderr,
            "usage: harness --serve --worker EXE --student SO --reference SO [--isolation on|off]\n"
            "                       [--checkout DIR] [--solutions DIR] [--labdir DIR]\n"
            "                       [--student-objs DIR] [--logs DIR] [--hide DIR ...]\n"
            "       harness --bench --worker EXE --reference SO --results FILE\n"
            "                       --variant NAME=SO ... [--cap S]\n"
            "       harness --profile --worker EXE --student SO --reference SO --isolation off\n"
            "                       [--timeline FILE] [--emulator-size]\n"
            "       harness --profile --worker EXE --student SO --reference SO --isolation on\n"
            "                       --counts FILE [--worker-log FILE] [--checkout DIR ...]\n"
            "                       [--reference-counts PREFIX]\n"
            "       harness --serve ... --isolation off --no-guards   (make sanitize)\n"
            "       harness --serve ... --ahead   (the next lab's, started while a lab is graded:\n"
            "                       its start done, it prints \"ready\" and waits for its first check)\n"
            "       harness --list-checks\n"
            "The grader starts this program; run `make grade` or `make bench` instead.\n");
    exit(4);
}

static options parse_options(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.isolate = 1;
    o.cap_s = SPEED_CAP_S;
    static const struct option longs[] = {
        {"serve", no_argument, NULL, 's'},     {"bench", no_argument, NULL, 'b'},
        {"worker", required_argument, NULL, 'w'}, {"student", required_argument, NULL, 'u'},
        {"reference", required_argument, NULL, 'r'},
        {"isolation", required_argument, NULL, 'i'}, {"cap", required_argument, NULL, 'c'},
        {"variant", required_argument, NULL, 'v'},
        /* the places hidden from workers (sandbox_places_option reads them) */
        {"checkout", required_argument, NULL, 'h'}, {"solutions", required_argument, NULL, 'h'},
        {"labdir", required_argument, NULL, 'h'}, {"student-objs", required_argument, NULL, 'h'},
        {"logs", required_argument, NULL, 'h'}, {"hide", required_argument, NULL, 'h'},
        {"results", required_argument, NULL, 'o'},
        {"require-isolation", no_argument, NULL, 'q'},
        {"profile", no_argument, NULL, 'p'},   {"timeline", required_argument, NULL, 't'},
        {"emulator-size", no_argument, NULL, 'e'},
        {"counts", required_argument, NULL, 'n'}, {"worker-log", required_argument, NULL, 'L'},
        {"reference-counts", required_argument, NULL, 'K'},
        {"list-checks", no_argument, NULL, 'l'}, {"no-guards", no_argument, NULL, 'g'},
        {"ahead", no_argument, NULL, 'a'},
        {NULL, 0, NULL, 0}};
    int ch, at = 0;
    while ((ch = getopt_long(argc, argv, "", longs, &at)) != -1) {
        switch (ch) {
        case 's': o.serve = 1; break;
        case 'b': o.bench = 1; break;
        case 'w': o.worker = optarg; break;
        case 'u': o.student_so = optarg; break;
        case 'r': o.reference_so = optarg; break;
        case 'i': o.isolate = strcmp(optarg, "off") != 0; break;
        case 'c': o.cap_s = atof(optarg); break;
        case 'h':
            if (sandbox_places_option(&o.hidden, longs[at].name, optarg) != 1)
                usage();
            break;
        case 'o': o.results = optarg; break;
        case 'q': require_isolation = 1; break;
        case 'p': o.profile = 1; break;
        case 't': o.timeline = optarg; break;
        case 'e': o.emulator_size = 1; break;
        case 'n': o.counts = optarg; break;
        case 'L': o.worker_log = optarg; break;
        case 'K': o.reference_counts = optarg; break;
        case 'l': o.list_checks = 1; break;
        case 'g': o.no_guards = 1; break;
        case 'a': o.ahead = 1; break;
        case 'v': {
            char *eq = strchr(optarg, '=');
            if (!eq || o.n_variants == 16)
                usage();
            *eq = 0;
            o.variant_name[o.n_variants] = optarg;
            o.variant_so[o.n_variants++] = eq + 1;
            break;
        }
        default: usage();
        }
    }
    if (o.list_checks)
        return o;
    if (o.serve + o.bench + o.profile != 1 || !o.worker || !o.reference_so ||
        ((o.serve || o.profile) && !o.student_so) || (o.bench && !o.results) ||
        /* profilers follow one process; the emulator's counts come from sandboxed workers */
        (o.profile && o.isolate != (o.counts != NULL)) || (o.no_guards && o.isolate) ||
        (o.reference_counts && !o.counts) ||
        (o.ahead && !o.serve))
        usage();
    return o;
}

int main(int argc, char **argv)
{
    const options o = parse_options(argc, argv);
    if (o.list_checks) { /* index, kind, name: make sanitize runs the correctness checks */
        static const char *const kinds[] = {"visible", "hidden", "speed"};
        for (int i = 0; i < harness_lab->n_checks; i++)
            printf("%d\t%s\t%s\n", i, kinds[harness_lab->checks[i].kind],
                   harness_lab->checks[i].name);
        return 0;
    }
    cuda_set_fail_hook(on_cuda_error);
    dbuf_set_allocator(harness_device_alloc, workers_device_free);
    dbuf_set_guards(!o.no_guards);
    device_info d;
    device_query(0, &d);
    char why[256];
    workers_hide(&o.hidden);
    workers_init(o.worker, o.student_so, o.reference_so, o.isolate, why, sizeof why);
    if (!o.ahead) /* (ahead: at its first check, once the lab before has ended) */
        workers_idle_baseline();
    if (o.profile && o.counts && !workers_isolated()) { /* never student code in this process */
        fprintf(stderr, "harness: the CPU emulator counts student code only in the grader's "
                        "sandbox, and this machine cannot give it one: %s (make doctor says more)\n",
                why);
        workers_shutdown();
        return 3;
    }
    if (o.profile) { /* a profiler's sections, or (under the emulator) make explain's counts */
        profile_reference_cache(o.reference_counts, o.worker, o.reference_so);
        const int status = profile_run(o.timeline, o.counts, o.worker_log, o.emulator_size, &d);
        workers_shutdown();
        return status;
    }
    if (o.bench) {
        const int fd = open(o.results, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            fatal("cannot write records to %s", o.results);
        results_set_fd(fd);
        run_bench(&o, &d);
        close(fd);
        workers_shutdown();
        return 0;
    }
    /* stdout is the channel to the driver: keep it for the answers, and send anything else
     * printed here (a lab's notes) to the harness's log. */
    const int reply_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    dup2(2, 1);
    /* The greeting, before any student code is in this process (the fallback loads it at its
     * first call): whether student code runs isolated, and the device. The driver labels the
     * run from these two lines alone, read once per harness process. */
    results_set_fd(reply_fd);
    results_begin("isolation");
    results_int("tamper_proof", workers_isolated());
    results_str("sandbox", workers_isolated() ? sandbox_kind_name(sandbox_available()) : "none");
    results_str("detail", why);
    results_emit();
    emit_device(&d, 0);
    if (o.ahead) {
        /* Started while the lab before is graded (the driver's ahead_start): the student's
         * process (which holds no student code before its first call) made now too, then
         * "ready", after which nothing of this harness's runs until its first check comes:
         * the driver waits for this line before it times anything. */
        workers_start_ahead(IMPL_STUDENT);
        reserve_ahead(&d);
        workers_wait_ready(30.0);
        dprintf(reply_fd, "ready\n");
    } else {
        /* The student's worker starts (process, sandbox, GPU context) while the first check
         * makes its inputs; what the speed checks need ahead starts once that check is
         * answered (prewarm_after), not beside the student's start, which it would slow. */
        workers_prewarm(IMPL_STUDENT);
    }
    char line[CHECK_LINE_MAX + 2];
    int checks_run = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (o.ahead && checks_run++ == 0) {
            /* Now that the lab before has ended (no process of its student's is left): the
             * idle yardstick, and the free memory that sizes the speed problems, which that
             * student's code could have held down while this harness started. */
            fprintf(stderr, "harness: started ahead of its lab, ready before the lab before "
                            "timed anything; its first check now\n");
            workers_idle_baseline();
            size_t free_b, total_b;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            d.free_mem_bytes = free_b;
        }
        check_cmd c;
        const char *why = "no such check in this lab";
        if (check_line_parse(line, &c, &why) != 0 || c.check >= harness_lab->n_checks)
            fatal("bad command from the driver (%s): %s", why, line);
        const int fd = open(c.records, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            fatal("cannot write records to %s", c.records);
        results_set_fd(fd);
        run_check(&c, &d, why);
        close(fd);
        fflush(stdout);
        dprintf(reply_fd, "done %d\n", c.check);
        prewarm_after(c.check, &d);
    }
    workers_host_reserved_end();
    workers_shutdown();
    return 0;
}
