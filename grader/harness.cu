/* harness.cu - main() of every lab runner: runs one check of the lab's table, or the bench.
 *
 *   runner --check N --seed S --results FILE [--threshold T] [--cap SECONDS]
 *   runner --bench --results FILE [--cap SECONDS]
 *
 * It reports raw facts as records (results.h) to FILE; the driver decides verdicts. Anything
 * the student's code prints goes to stdout/stderr, which the driver keeps in a log. A CUDA
 * error anywhere ends the process with an `error` record and status 3. */
#include "harness.h"
#include "results.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/stats.h"
#include "../common/timing.h"
#include "../common/util.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

size_t harness_memory_budget(const device_info *d)
{
    return d->free_mem_bytes / 2;
}

size_t harness_speed_bytes(const device_info *d, int l2_multiple, int buffers)
{
    size_t bytes = (size_t)l2_multiple * d->l2_bytes;
    if (bytes < ((size_t)256 << 20))
        bytes = (size_t)256 << 20;
    if (buffers * bytes > harness_memory_budget(d))
        bytes = harness_memory_budget(d) / buffers;
    return bytes;
}

/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                     */

static void on_cuda_error(cudaError_t err, const char *call, const char *file, int line)
{
    char where[512];
    snprintf(where, sizeof where, "%s:%d", file, line);
    results_begin("error");
    results_str("kind", "cuda");
    results_str("name", cudaGetErrorName(err));
    results_str("message", cudaGetErrorString(err));
    results_str("call", call);
    results_str("where", where);
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

static void emit_verify(const verify_result *v, const char *impl)
{
    char text[512];
    compare_describe(&v->out, v->cols, text, sizeof text);
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

static int verify_passed(const verify_result *v)
{
    return v->out.n > 0 && v->out.n_bad == 0 && v->guard_ok && v->input_ok && !v->problem[0];
}

/* ------------------------------------------------------------------------------------------ */
/* Running implementations                                                                     */

typedef struct run_ctx {
    const lab_task *task; /* the task being run */
    void *problem;        /* its state */
    const int *impl_of;   /* variant index -> IMPL_* */
    int n_variants;       /* entries in impl_of */
    int student_variant;  /* variant index of IMPL_STUDENT, -1 if none */
    int reverified;       /* timed student outputs verified so far */
    int reverify_failed;  /* 1 once one of them was wrong */
    verify_result last_bad; /* the failing verification, if any */
} run_ctx;

static void prepare_variant(void *ctx, int variant, cudaStream_t s)
{
    run_ctx *c = (run_ctx *)ctx;
    c->task->prepare(c->problem, c->impl_of[variant], s);
}

static void run_variant(void *ctx, int variant, cudaStream_t s)
{
    run_ctx *c = (run_ctx *)ctx;
    c->task->run(c->problem, c->impl_of[variant], s);
}

/* Re-verify the student's timed output in rounds where the student ran last (poisoned right
 * before that call, so what is there came from it): rounds 2^k - 1 and k >= 0 ... */
static void after_round(void *ctx, int round)
{
    run_ctx *c = (run_ctx *)ctx;
    if (c->student_variant < 0 || c->reverify_failed)
        return;
    const int last = (round + c->n_variants - 1) % c->n_variants;
    if (last != c->student_variant || ((round + 1) & round) != 0)
        return;
    verify_result v;
    memset(&v, 0, sizeof v);
    v.input_ok = 1;
    CUDA_CHECK(cudaDeviceSynchronize());
    c->task->verify(c->problem, &v);
    c->reverified++;
    if (!verify_passed(&v)) {
        c->reverify_failed = 1;
        c->last_bad = v;
    }
}

/* One untimed call of impl, checked. */
static void call_and_verify(const lab_task *t, void *p, int impl, cudaStream_t s,
                            verify_result *v)
{
    memset(v, 0, sizeof *v);
    v->input_ok = 1;
    t->prepare(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    t->run(p, impl, s);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    t->verify(p, v);
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
    default: return "fixed";
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Checks                                                                                      */

typedef struct options {
    int check;          /* table row, or -1 for --bench */
    uint64_t seed;      /* the run's secret seed */
    const char *results;/* path of the records file */
    double threshold;   /* the pass mark the stopping rule watches */
    double cap_s;       /* soft time cap of a speed check */
} options;

static void usage(void)
{
    fprintf(stderr,
            "usage: runner --check N --seed S --results FILE [--threshold T] [--cap SECONDS]\n"
            "       runner --bench --results FILE [--cap SECONDS]\n"
            "This program is started by the grader; run `make grade` instead.\n");
    exit(4);
}

static options parse_options(int argc, char **argv)
{
    options o = {-2, 0, NULL, 0.0, 15.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--bench")) {
            o.check = -1;
        } else if (!strcmp(a, "--check") && val) {
            o.check = atoi(val), i++;
        } else if (!strcmp(a, "--seed") && val) {
            o.seed = strtoull(val, NULL, 0), i++;
        } else if (!strcmp(a, "--results") && val) {
            o.results = val, i++;
        } else if (!strcmp(a, "--threshold") && val) {
            o.threshold = atof(val), i++;
        } else if (!strcmp(a, "--cap") && val) {
            o.cap_s = atof(val), i++;
        } else {
            usage();
        }
    }
    if (o.check == -2 || !o.results)
        usage();
    return o;
}

static void sizes_for(const lab_check *c, const lab_task *t, int index, uint64_t seed,
                      const device_info *d, long long size[LAB_MAX_DIMS])
{
    memcpy(size, c->size, sizeof c->size);
    if (c->kind == CHECK_HIDDEN) {
        rng r;
        rng_seed(&r, rng_derive(seed, (uint64_t)index));
        t->hidden_size(&r, size);
    } else if (c->kind == CHECK_SPEED) {
        t->speed_size(d, size);
    }
}

/* The ceiling's time for this problem: the task's own hook, or the median of 7 timed calls of
 * IMPL_CEILING (each after an L2 flush, like every sample). */
static double ceiling_ms(const lab_task *t, void *p, const device_info *d, double clock_mhz,
                         l2_flusher *f, cudaStream_t s)
{
    if (t->ceiling_ms)
        return t->ceiling_ms(p, d, clock_mhz, s);
    static const int ceil_impl[1] = {IMPL_CEILING};
    run_ctx ctx = {t, p, ceil_impl, 1, -1, 0, 0, {}};
    timing_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n_variants = 1;
    plan.warmup_rounds = 1;
    plan.min_rounds = plan.max_rounds = 7;
    plan.ratio_num = -1;
    plan.hard_cap_s = 60;
    plan.host_clock = t->host_clock;
    timing_result r;
    time_interleaved(&plan, prepare_variant, run_variant, &ctx, NULL, f, s, &r);
    const double ms = median_of(&r, t->host_clock, 0);
    timing_result_free(&r);
    return ms;
}

static void run_speed(const options *o, const lab_task *t, void *p, const device_info *d,
                      double clock_mhz, cudaStream_t s)
{
    static const int impls[2] = {IMPL_STUDENT, IMPL_REFERENCE};
    run_ctx ctx = {t, p, impls, 2, 0, 0, 0, {}};
    timing_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n_variants = 2;
    plan.warmup_rounds = 2;
    plan.min_rounds = 10;
    plan.max_rounds = 1000;
    plan.soft_cap_s = o->cap_s;
    plan.hard_cap_s = 3 * o->cap_s;
    plan.ratio_num = 1; /* reference time ... */
    plan.ratio_den = 0; /* ... over student time */
    plan.threshold = o->threshold;
    plan.precision = 0.01;
    plan.host_clock = t->host_clock;
    l2_flusher f;
    l2_flusher_init(&f, d);
    timing_result r;
    time_interleaved(&plan, prepare_variant, run_variant, &ctx, after_round, &f, s, &r);
    for (int i = 0; i < r.rounds; i++) {
        results_begin("sample");
        results_num("stu_ms", r.event_ms[2 * i + 0]);
        results_num("ref_ms", r.event_ms[2 * i + 1]);
        results_num("stu_host_ms", r.host_ms[2 * i + 0]);
        results_num("ref_host_ms", r.host_ms[2 * i + 1]);
        results_emit();
    }
    if (ctx.reverify_failed)
        emit_verify(&ctx.last_bad, "student-timed");

    const double ceiling = ceiling_ms(t, p, d, clock_mhz, &f, s);
    results_begin("speed");
    results_num("work", t->work(p));
    results_str("unit", t->unit);
    results_str("ceiling", t->ceiling);
    results_num("ceiling_ms", ceiling);
    results_int("host_clock", t->host_clock);
    results_int("escaped", !t->host_clock && timing_escaped(&r, 0, 0.25));
    results_str("stop", stop_name(r.stop));
    results_num("seconds", r.seconds);
    results_int("reverified", ctx.reverified);
    results_emit();
    timing_result_free(&r);
    l2_flusher_free(&f);
}

static void run_check(const options *o)
{
    const lab_info *lab = harness_lab;
    if (o->check < 0 || o->check >= lab->n_checks)
        fatal("check %d does not exist in lab %s (0..%d)", o->check, lab->name,
              lab->n_checks - 1);
    const lab_check *c = &lab->checks[o->check];
    const lab_task *t = &harness_tasks[c->task];
    results_begin("begin");
    results_str("lab", lab->name);
    results_int("check", o->check);
    results_emit();

    device_info d;
    device_query(0, &d);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const double mhz =
        (c->kind == CHECK_SPEED && !d.emulated) ? device_measure_sm_clock_mhz(&d, s) : 0.0;
    emit_device(&d, mhz);

    long long size[LAB_MAX_DIMS];
    sizes_for(c, t, o->check, o->seed, &d, size);
    void *p = t->create(size, rng_derive(o->seed, 1000u + (uint64_t)o->check), &d);
    char desc[256];
    t->describe(p, desc, sizeof desc);
    results_begin("case");
    results_str("size", desc);
    results_emit();

    if (c->kind == CHECK_SPEED && d.emulated) {
        results_begin("skipped");
        results_str("reason", "CPU emulation: there is no GPU to time");
        results_emit();
    } else {
        verify_result v;
        call_and_verify(t, p, IMPL_STUDENT, s, &v);
        emit_verify(&v, "student");
        if (c->kind == CHECK_SPEED && verify_passed(&v))
            run_speed(o, t, p, &d, mhz, s);
    }
    t->destroy(p);
    CUDA_CHECK(cudaStreamDestroy(s));
    results_begin("end");
    results_emit();
}

/* ------------------------------------------------------------------------------------------ */
/* Bench: every variant of every timed task, side by side, in one process                      */

static void run_bench(const options *o)
{
    const lab_info *lab = harness_lab;
    results_begin("begin");
    results_str("lab", lab->name);
    results_str("mode", "bench");
    results_emit();
    device_info d;
    device_query(0, &d);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const double clock_mhz = d.emulated ? 0.0 : device_measure_sm_clock_mhz(&d, s);
    emit_device(&d, clock_mhz);
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *c = &lab->checks[i];
        if (c->kind != CHECK_SPEED)
            continue;
        const lab_task *t = &harness_tasks[c->task];
        long long size[LAB_MAX_DIMS];
        sizes_for(c, t, i, 1, &d, size);
        void *p = t->create(size, 12345u + (uint64_t)i, &d);
        char desc[256];
        t->describe(p, desc, sizeof desc);
        int impls[TIMING_MAX_VARIANTS];
        const char *names[TIMING_MAX_VARIANTS];
        int nv = 0;
        impls[nv] = IMPL_STUDENT, names[nv++] = "skeleton";
        impls[nv] = IMPL_REFERENCE, names[nv++] = "reference";
        if (!t->ceiling_ms) /* a timed ceiling runs interleaved with the others */
            impls[nv] = IMPL_CEILING, names[nv++] = t->ceiling;
        for (int k = 0; k < t->n_extra && nv < TIMING_MAX_VARIANTS; k++)
            impls[nv] = IMPL_EXTRA + k, names[nv++] = t->extra[k];
        /* Every variant that produces the output must produce it right before it is timed. */
        for (int v = 0; v < nv; v++) {
            if (impls[v] == IMPL_CEILING)
                continue;
            verify_result vr;
            call_and_verify(t, p, impls[v], s, &vr);
            if (!verify_passed(&vr)) {
                emit_verify(&vr, names[v]);
                fatal("bench: variant %s of %s is wrong; fix it before timing", names[v],
                      t->name);
            }
        }
        run_ctx ctx = {t, p, impls, nv, -1, 0, 0, {}};
        timing_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.n_variants = nv;
        plan.warmup_rounds = 2;
        plan.min_rounds = 15;
        plan.max_rounds = 200;
        plan.soft_cap_s = o->cap_s;
        plan.hard_cap_s = o->cap_s;
        plan.ratio_num = 0; /* skeleton */
        plan.ratio_den = 1; /* reference */
        plan.precision = 0.01;
        plan.host_clock = t->host_clock;
        l2_flusher f;
        l2_flusher_init(&f, &d);
        timing_result r;
        time_interleaved(&plan, prepare_variant, run_variant, &ctx, NULL, &f, s, &r);
        for (int v = 0; v < nv; v++) {
            const double ms = median_of(&r, t->host_clock, v);
            double *x = (double *)xmalloc(r.rounds * sizeof *x);
            double lo, hi;
            timing_series(&r, t->host_clock, v, x);
            stats_median_ci(x, r.rounds, &lo, &hi);
            free(x);
            results_begin("bench");
            results_str("task", t->name);
            results_str("size", desc);
            results_str("variant", names[v]);
            results_int("impl", impls[v]);
            results_num("ms", ms);
            results_num("ms_lo", lo);
            results_num("ms_hi", hi);
            results_num("rate", t->work(p) / (ms * 1e6));
            results_str("unit", t->unit);
            results_int("rounds", r.rounds);
            results_emit();
        }
        if (t->ceiling_ms) { /* a computed or assembled ceiling: one more row */
            const double ms = t->ceiling_ms(p, &d, clock_mhz, s);
            results_begin("bench");
            results_str("task", t->name);
            results_str("size", desc);
            results_str("variant", t->ceiling);
            results_int("impl", IMPL_CEILING);
            results_num("ms", ms);
            results_num("ms_lo", ms);
            results_num("ms_hi", ms);
            results_num("rate", t->work(p) / (ms * 1e6));
            results_str("unit", t->unit);
            results_int("rounds", 0);
            results_emit();
        }
        timing_result_free(&r);
        l2_flusher_free(&f);
        t->destroy(p);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    results_begin("end");
    results_emit();
}

int main(int argc, char **argv)
{
    const options o = parse_options(argc, argv);
    const int fd = open(o.results, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fatal("cannot write results to %s", o.results);
    results_set_fd(fd);
    cuda_set_fail_hook(on_cuda_error);
    if (o.check >= 0)
        run_check(&o);
    else
        run_bench(&o);
    close(fd);
    return 0;
}
