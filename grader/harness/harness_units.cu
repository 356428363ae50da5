/* harness_units.cu - TRUSTED PROCESS (the harness): a speed check's timed units: K problems per
 * unit, fresh inputs every round, every output compared, the calls a unit makes and how they are
 * prepared, run and settled. Its phases, which time these units, are harness_speed.cu's. */
#include "harness_parts.h"

/* ------------------------------------------------------------------------------------------ */
/* Speed: K problems per timed unit, fresh inputs every round, every output compared          */


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
    /* the problems both sides ran this round (the student's units may hold fewer calls) */
    const int both = calls_of(c, V_STUDENT) < calls_of(c, V_REFERENCE) ? calls_of(c, V_STUDENT)
                                                                       : calls_of(c, V_REFERENCE);
    if (c->first < 0) {
        c->first = v;
        for (int i = 0; i < both; i++) {
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
    for (int i = 0; i < both && !c->failed; i++) {
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

/* Before phase 1's first kept round: a student's unit of one call where one call of its, in the
 * warm-up round, lasted a unit (SPEED_UNIT_MS) or more and ran below FEWER_BELOW of the pass
 * mark (an untouched SGEMM skeleton: a hundredth of the reference's speed, a second a unit of
 * four calls). Its ratio is then per call (the plan's calls), and the phase can only end in
 * the early FAIL (TIMING_EARLY_ROUNDS rounds, every one far below the mark): a kept round whose
 * unit lasted less than a unit, or whose ratio came within TIMING_EARLY_BELOW of the mark, or
 * three rounds that did not end it, and the phase starts again from none with k calls a unit
 * (speed_restart), as every other phase runs. Nothing the student's code does can gain by it:
 * each of its calls is timed as before, with the same null call's cost taken off a unit at
 * least as long as the reference's. */
#define FEWER_BELOW (TIMING_EARLY_BELOW / 2)

/* From now on the student's units hold `calls` calls: 1 (fewer), or the check's k. */
void student_unit_calls(speed_ctx *c, int calls)
{
    c->fewer = calls < c->k;
    c->k_of[V_STUDENT] = c->fewer ? calls : 0; /* (0: the check's k) */
    c->calls_now[V_STUDENT] = calls;
}

static void speed_fewer_calls(speed_ctx *c)
{
    if (c->fewer_decided || c->threshold <= 0 || c->k < 2)
        return;
    c->fewer_decided = 1;
    const double null_ms = c->warm_ms[V_NULL];
    const double stu = (c->warm_ms[V_STUDENT] - null_ms) / c->k;
    const double ref = (c->warm_ms[V_REFERENCE] - null_ms) / c->k;
    if (!(stu >= SPEED_UNIT_MS) || !(ref > 0) || ref / stu >= FEWER_BELOW * c->threshold)
        return;
    student_unit_calls(c, 1);
}

int speed_restart(void *ctx, const timing_result *r)
{
    speed_ctx *c = (speed_ctx *)ctx;
    if (!c->fewer || r->rounds < 1)
        return 0;
    const int nv = r->n_variants, last = r->rounds - 1;
    const double o = median_of(r, 1, V_NULL);
    const double stu = r->host_ms[last * nv + V_STUDENT] - o;
    const double ref = (r->host_ms[last * nv + V_REFERENCE] - o) / c->k;
    if (r->rounds < TIMING_EARLY_ROUNDS && stu >= SPEED_UNIT_MS &&
        ref / stu < TIMING_EARLY_BELOW * c->threshold)
        return 0; /* on towards the early FAIL */
    student_unit_calls(c, c->k);
    c->left_running = 0; /* (the kept rounds' count: those are discarded) */
    return 1;
}

void speed_before_round(void *ctx, int round)
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
    if (round == 0)
        speed_fewer_calls(c);
}

/* Calls of variant v in one timed unit. */
int calls_of(const speed_ctx *c, int v)
{
    return c->k_of[v] > 0 && c->k_of[v] < c->k ? c->k_of[v] : c->k;
}

void speed_prepare(void *ctx, int v, cudaStream_t s)
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

static void speed_run_one(speed_ctx *c, int v, cudaStream_t s);

/* A sample of variant v; in a warm-up round its unit's wall time is kept (speed_fewer_calls) */
void speed_run(void *ctx, int v, cudaStream_t s)
{
    speed_ctx *c = (speed_ctx *)ctx;
    const double at = wall_seconds();
    speed_run_one(c, v, s);
    if (c->round < 0 && v < TIMING_MAX_VARIANTS)
        c->warm_ms[v] = (wall_seconds() - at) * 1e3;
}

static void speed_run_one(speed_ctx *c, int v, cudaStream_t s)
{
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

void speed_after_round(void *ctx, int round)
{
    speed_ctx *c = (speed_ctx *)ctx;
    const double at = wall_seconds();
    if (c->pending >= 0)
        settle_sample(c, c->pending, 0);
    if (c->watch_on && round >= 0) { /* the clocks after a kept round: a few microseconds */
        gpu_reading g;
        gpu_watch_read(&g);
        gpu_span_add(&c->watch, &g);
    }
    c->settle_s += wall_seconds() - at;
    c->pending = -1;
}

/* Make the K problems of a timed unit: enough calls that a unit lasts `unit_ms` at the
 * reference's speed, within the memory budget. */
void speed_instances(speed_ctx *c, const long long size[LAB_MAX_DIMS], uint64_t seed,
                     const device_info *d, double unit_ms, cudaStream_t s)
{
    size_t free0, free1, total;
    /* (a worker still starting would change the free memory between the two readings, and so
     * would the correctness checks' regions: given back first) */
    workers_wait_ready(10.0);
    workers_regions_drain();
    CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    harness_set_device_only(1);
    lab_footprint f;
    memset(&f, 0, sizeof f);
    served_lab()->footprint((int)(c->t - served_tasks()), size, &f);
    /* the problems in two regions: the first's sized by its footprint, the rest's by its
     * pieces (workers_device_speed_begin) */
    workers_device_speed_begin(f.device_bytes > 0 ? (size_t)f.device_bytes : 0);
    c->inst[0] = c->t->create(size, rng_derive(seed, 0), d);
    CUDA_CHECK(cudaMemGetInfo(&free1, &total));
    /* (what the first region holds beyond the problem is no part of it) */
    const size_t slack = workers_device_speed_slack();
    size_t per = free0 > free1 + slack ? free0 - free1 - slack : 0;
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
    workers_device_speed_more(k - 1);
    for (int i = 1; i < k; i++)
        c->inst[i] = c->t->create(size, rng_derive(seed, (uint64_t)i), d);
    workers_device_speed_end();
    harness_set_device_only(0);
    c->k = k;
    for (int i = 0; i < k; i++) {
        const int n = speed_outputs(c, i, out, s);
        for (int j = 0; j < n; j++)
            if (out[j].n)
                CUDA_CHECK(cudaMalloc(&c->saved[i][j], out[j].n * 4));
    }
}

void speed_free(speed_ctx *c)
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

double median_of(const timing_result *r, int host_clock, int v)
{
    double *x = (double *)xmalloc(r->rounds * sizeof *x);
    timing_series(r, host_clock, v, x);
    const double m = stats_median(x, r->rounds);
    free(x);
    return m;
}
