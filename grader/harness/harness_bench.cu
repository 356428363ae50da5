/* harness_bench.cu - TRUSTED PROCESS (the harness): make bench: every variant of a lab side
 * by side, in this process (CUDA events) and isolated (host clock), with the ceiling. */
#include "harness_parts.h"

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

void run_bench(const options *o, const device_info *d)
{
    const lab_info *lab = served_lab();
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
        const lab_task *t = &served_tasks()[ck->task];
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
