/* harness_speed.cu - TRUSTED PROCESS (the harness): a speed check's phases (the student, the
 * reference and the null call interleaved; the reference alone; the ceiling), each timing the
 * units of harness_units.cu, and their records. */
#include "harness_parts.h"
#include <sys/stat.h>

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

/* Phase `id` of the timing plan (speed_plan.h) on `base`: its warm-up, rounds and hard cap for
 * a check capped at cap_s; a phase of fixed rounds with no ratio and no pass mark. */
static timing_plan phase_plan(timing_plan base, speed_phase_id id, double cap_s)
{
    const speed_phase *ph = &speed_phases[id];
    base.warmup_rounds = ph->warmup_rounds;
    base.min_rounds = ph->min_rounds;
    base.max_rounds = ph->max_rounds;
    base.hard_cap_s = speed_phase_cap_s(ph, cap_s);
    if (ph->min_rounds == ph->max_rounds) { /* fixed rounds: no verdict rests on them */
        base.ratio_num = base.ratio_offset = -1;
        base.threshold = 0;
    }
    return base;
}

/* The ceiling's time for one call of this problem: the task's own hook, or the median of 7
 * event-timed calls of IMPL_CEILING in this process (each after an L2 flush). */
double ceiling_ms(speed_ctx *c, const device_info *d, double clock_mhz, l2_flusher *f,
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
    plan.host_clock = c->t->host_clock;
    plan = phase_plan(plan, PHASE_CEILING, 0);
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

void phase_free(speed_ctx *c)
{
    free(c->left_ms);
    free(c->busy_before);
    c->left_ms = NULL;
    c->busy_before = NULL;
}

/* The GPU watched while phase 1 is timed (common/gpu_watch.h, NVML): after each kept round
 * the harness reads the clocks, the clock event reasons and the running totals of time held
 * down by power and temperature. A phase whose clock a limit held down (or whose SM clock
 * moved by more than 2%) is timed once more, in a fresh process of the student's, from its
 * warm-up on; a second throttled phase stands, and both outcomes go into the `speed` record
 * (gpu_watch, gpu_watch_why, gpu_watch_again), which the verdict's notes name: never a verdict
 * passed or failed on a throttled clock without saying so. The watch opens at the harness's
 * first speed check (nvmlInit), once; without NVML it says "not watched".
 * GRADER_GPU_WATCH_TEST=once|always (the driver's environment, never the student's) makes up a
 * throttle at the first phase or at both: the tests' way through both branches on a quiet GPU. */
typedef struct watch_outcome {
    int verdict;    /* gpu_span_verdict's: 1 throttled, 0 quiet, -1 not watched */
    int again;      /* 1: the phase was timed again after a throttled first one */
    char why[256];  /* the last phase's reading in words */
    char first[256]; /* the first phase's, when it was timed again */
} watch_outcome;

static int watch_verdict(speed_ctx *c, int phase, char *why, size_t len)
{
    const char *test = getenv("GRADER_GPU_WATCH_TEST");
    if (test && (!strcmp(test, "always") || (!strcmp(test, "once") && phase == 0))) {
        snprintf(why, len, "a throttle made up by GRADER_GPU_WATCH_TEST=%s", test);
        return 1;
    }
    return gpu_span_verdict(&c->watch, why, len);
}

static void time_watched_phase(speed_ctx *c, const timing_plan *plan, cudaStream_t s,
                               timing_result *r, watch_outcome *w)
{
    static int watching = -1; /* this harness's watch: opened at its first speed check */
    if (watching < 0) {
        int dev = 0;
        char bus[32];
        watching = cudaGetDevice(&dev) == cudaSuccess &&
                   cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess && gpu_watch_open(bus);
    }
    memset(w, 0, sizeof *w);
    for (int phase = 0;; phase++) {
        c->watch_on = watching;
        gpu_span_clear(&c->watch);
        time_phase(c, plan, s, r);
        c->watch_on = 0;
        w->verdict = watch_verdict(c, phase, w->why, sizeof w->why);
        if (w->verdict != 1 || phase > 0 || c->failed)
            return;
        /* throttled: the phase again, as it began (a fresh student's process, k calls a unit,
         * the fewer-calls decision and the kept rounds' counts undone) */
        w->again = 1;
        snprintf(w->first, sizeof w->first, "%s", w->why);
        timing_result_free(r);
        phase_free(c);
        student_unit_calls(c, c->k);
        c->fewer_decided = 0;
        c->left_running = 0;
        workers_fresh(IMPL_STUDENT);
    }
}

static void emit_watch(const watch_outcome *w)
{
    results_str("gpu_watch", w->verdict == 1 ? "throttled" : w->verdict == 0 ? "quiet" : "not watched");
    results_str("gpu_watch_why", w->why);
    results_int("gpu_watch_again", w->again);
    if (w->again)
        results_str("gpu_watch_first", w->first);
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

/* The reference alone, the student's process gone (the reference and the null call, phase
 * `id` of the timing plan: PHASE_ALONE or PHASE_AGAIN_ALONE): records `alone` with `phase`; r
 * gets the times (free with timing_result_free). */
static void time_alone(const speed_ctx *c, const timing_plan *plan, double cap_s,
                       speed_phase_id id, int phase, cudaStream_t s, timing_result *r)
{
    workers_kill(IMPL_STUDENT);
    speed_ctx alone = *c;
    alone.compare = 0;
    alone.impl_of[0] = IMPL_REFERENCE;
    alone.impl_of[1] = IMPL_NULL;
    timing_plan ap = phase_plan(*plan, id, cap_s);
    ap.n_variants = 2;
    time_phase(&alone, &ap, s, r);
    static const char *const names[] = {"ref", "null"};
    emit_rounds("alone", phase, &alone, r, names);
    phase_free(&alone);
}

/* Whether phase 1's ratio (reference time / student time, each less the null call's median
 * and per call, as the stopping rule and the driver compute it) has its whole 95% interval
 * below the pass mark. Then the reference alone measures nothing a verdict could use: beside a process that
 * slowed it, the reference's time is longer and the ratio higher, so the student's true ratio
 * is lower still, a FAIL either way. */
static int ratio_surely_below(const timing_result *r, double threshold, int student_calls,
                              int reference_calls)
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
    for (int i = 0; i < n; i++) /* (the driver's floor: never below 1% of the time; per call) */
        num[i] = fmax(num[i] - o, 0.01 * num[i]) / reference_calls,
        den[i] = fmax(den[i] - o, 0.01 * den[i]) / student_calls;
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
    plan.soft_cap_s = o->cap_s;
    plan.ratio_num = V_REFERENCE; /* reference time ... */
    plan.ratio_den = V_STUDENT;   /* ... over student time, */
    plan.ratio_offset = V_NULL;   /* each less the path's own cost */
    plan.threshold = o->threshold;
    plan.precision = SPEED_PRECISION;
    plan.host_clock = 1;
    plan.before_round = speed_before_round;
    return phase_plan(plan, PHASE_SAMPLE, o->cap_s);
}

/* This check's key in a batch's cache of the reference alone (alone_cache.h): 1 with key,
 * *dir and *max_age_s set, or 0 where there is none (make grade; a fact of the key unknown). */
static int alone_key(const speed_ctx *c, const check_cmd *o, char *key, size_t len,
                     const char **dir, double *max_age_s)
{
    if (alone_cache_config(dir, max_age_s) != 0 || !harness_reference_object())
        return 0;
    char size[256], pci[64], gpu[400], host[256] = "", ref[160];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(pci, sizeof pci, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    /* the GPU: its machine and its place on the bus (a folder several machines share, as a
     * cluster's, holds each machine's own measurements apart; their clocks are their own) */
    gethostname(host, sizeof host - 1);
    snprintf(gpu, sizeof gpu, "%s/%s", host, pci);
    struct stat st; /* the reference's file: the batch's build, unchanged while it runs */
    if (stat(harness_reference_object(), &st) != 0)
        return 0;
    snprintf(ref, sizeof ref, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long)st.st_mtim.tv_nsec);
    c->t->describe(c->inst[0], size, sizeof size);
    return alone_cache_key(key, len, served_lab()->name, o->check, size, c->k, gpu, ref) == 0;
}

/* A kept measurement as the rounds of an `alone` phase (variant 0 the reference, 1 the null
 * call; host clock, what emit_rounds writes). Free with timing_result_free. */
static void alone_result(const alone_series *a, timing_result *r)
{
    memset(r, 0, sizeof *r);
    r->rounds = a->n;
    r->n_variants = 2;
    r->host_ms = (double *)xmalloc(2 * a->n * sizeof *r->host_ms);
    for (int i = 0; i < a->n; i++) {
        r->host_ms[2 * i] = a->ref_ms[i];
        r->host_ms[2 * i + 1] = a->null_ms[i];
    }
}

/* In a batch: the reference alone as the batch measured it on this GPU a while ago, if the
 * reference ran no slower beside the student (phase 1, r) than then, within the lab's noise:
 * 1 with its `alone` records written and *age_s set. 0: measure it now. */
static int alone_from_batch(const speed_ctx *c, const timing_result *r, const char *dir,
                            const char *key, double max_age_s, double *age_s)
{
    alone_series a;
    if (alone_cache_get(dir, key, max_age_s, &a) != 0)
        return 0;
    double *b = (double *)xmalloc((r->rounds + 1) * sizeof *b);
    double *bn = (double *)xmalloc((r->rounds + 1) * sizeof *bn);
    timing_series(r, 1, V_REFERENCE, b);
    timing_series(r, 1, V_NULL, bn);
    const int used = alone_cache_serves(b, bn, r->rounds, &a, lab_slowdown_noise(served_lab()));
    free(b), free(bn);
    if (used) {
        timing_result kept;
        alone_result(&a, &kept);
        speed_ctx shown = *c; /* (no idle probes' figures: those rounds are not this check's) */
        shown.left_ms = NULL;
        shown.busy_before = NULL;
        static const char *const names[] = {"ref", "null"};
        emit_rounds("alone", 1, &shown, &kept, names);
        timing_result_free(&kept);
        *age_s = a.age_s;
    }
    return used;
}

/* The reference alone after phase 1 (r), and, when it ran clearly slower beside the student
 * than alone (or GRADER_REMEASURE_SLOWDOWN=1), phase 2: beside a fresh student process and
 * alone again, fixed rounds, no verdict resting on them. Their seconds in *alone_s, *again_s;
 * in a batch, the reference alone may be the batch's (alone_from_batch): then *cached_age_s
 * is its age, else -1. */
static void reference_alone(speed_ctx *c, const check_cmd *o, const timing_plan *plan,
                            const timing_result *r, cudaStream_t s, double *alone_s,
                            double *again_s, double *cached_age_s)
{
    const char *again = getenv("GRADER_REMEASURE_SLOWDOWN");
    const int remeasure = again && !strcmp(again, "1");
    char key[ALONE_CACHE_KEY_MAX];
    const char *dir = NULL;
    double max_age_s = 0;
    const int keyed = !remeasure && alone_key(c, o, key, sizeof key, &dir, &max_age_s);
    *cached_age_s = -1;
    if (keyed && alone_from_batch(c, r, dir, key, max_age_s, cached_age_s))
        return;
    timing_result alone1;
    double at = wall_seconds();
    time_alone(c, plan, o->cap_s, PHASE_ALONE, 1, s, &alone1);
    *alone_s = wall_seconds() - at;
    if (keyed && alone1.rounds >= 1 && alone1.rounds <= ALONE_CACHE_MAX_ROUNDS) {
        alone_series a; /* kept for the batch's next students on this GPU */
        memset(&a, 0, sizeof a);
        a.n = alone1.rounds;
        timing_series(&alone1, 1, 0, a.ref_ms);
        timing_series(&alone1, 1, 1, a.null_ms);
        (void)alone_cache_put(dir, key, &a);
    }
    const double slowdown = phase_slowdown(r, V_REFERENCE, V_NULL, &alone1);
    if (slowdown > lab_slowdown_noise(served_lab()) || remeasure) {
        const timing_plan bp = phase_plan(*plan, PHASE_AGAIN_BESIDE, o->cap_s);
        workers_kill(IMPL_STUDENT);
        c->seed = rng_derive(c->seed, 2); /* inputs of its own: nothing to remember */
        timing_result beside2, alone2;
        at = wall_seconds();
        time_phase(c, &bp, s, &beside2);
        emit_rounds("beside", 2, c, &beside2, speed_names);
        phase_free(c);
        emit_timed_verify(c); /* its outputs are compared as in the first phase */
        if (!c->failed) {
            time_alone(c, plan, o->cap_s, PHASE_AGAIN_ALONE, 2, s, &alone2);
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
 * again every time (tests/gpu/noise.sh: the spread of honest runs). Longer than most functions
 * here: the phases in the order they run, each a few lines, read best as one sequence. */
void run_speed(const check_cmd *o, const lab_task *t, const long long size[LAB_MAX_DIMS],
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
    double setup_s = 0, phase_s = 0, alone_s = 0, again_s = 0, ceiling_s = 0, cached_age_s = -1;
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

    timing_plan plan = speed_plan(o, timed_ceiling);
    for (int v = 0; v < plan.n_variants; v++) /* (each unit k calls, the null call one) */
        c->calls_now[v] = c->impl_of[v] == IMPL_NULL ? 1 : c->k;
    plan.calls = c->calls_now;
    plan.restart = speed_restart; /* (speed_fewer_calls) */
    c->threshold = o->threshold;
    workers_fresh(IMPL_STUDENT); /* a fresh process for the phase (see above) */
    timing_result r;
    at = wall_seconds();
    c->refresh_s = c->prepare_s = c->settle_s = c->probe_s = 0;
    watch_outcome watch;
    time_watched_phase(c, &plan, s, &r, &watch);
    phase_s = wall_seconds() - at;
    /* the student's calls a unit in the kept rounds; every later phase has k again */
    const int student_calls = calls_of(c, V_STUDENT);
    c->threshold = 0;
    student_unit_calls(c, c->k);
    plan.calls = NULL;
    plan.restart = NULL;
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
    if (!c->failed && !ratio_surely_below(&r, o->threshold, student_calls, c->k))
        reference_alone(c, o, &plan, &r, s, &alone_s, &again_s, &cached_age_s);
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
    results_int("student_calls_per_unit", student_calls);
    results_str("stop", stop_name(stop));
    results_num("seconds", seconds);
    results_int("reverified", (long long)c->compared);
    results_int("left_running", c->left_running);
    results_num("setup_s", setup_s);
    results_num("phase_s", phase_s);
    results_num("alone_s", alone_s);
    if (cached_age_s >= 0) /* the reference alone was the batch's, measured this long ago */
        results_num("alone_cached_age_s", cached_age_s);
    results_num("again_s", again_s);
    results_num("ceiling_s", ceiling_s);
    results_num("verify_s", verify_s);
    results_num("refresh_s", parts[0]); /* phase 1's untimed work, by part (speed_ctx) */
    results_num("prepare_s", parts[1]);
    results_num("settle_s", parts[2]);
    results_num("probe_s", parts[3]);
    emit_watch(&watch);
    results_emit();
}
