/* harness_emit.cu - TRUSTED PROCESS (the harness): the hooks a lab's problem calls
 * (harness.h), device memory and whose is missing when the grader runs short, the records a
 * check writes (records.h), one call checked against the CPU's answer, and a check's problem
 * size. It calls nothing of the harness's other files. */
#include "harness_parts.h"

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
void harness_problems_clear(void) { memset(problems, 0, sizeof problems); }
void harness_clear_problem(int impl) { problems[impl][0] = 0; }
void harness_note_problem(int impl, const char *problem)
{
    if (!problems[impl][0])
        snprintf(problems[impl], sizeof problems[impl], "%s", problem);
}

void *harness_host_alloc(size_t bytes) { return workers_host_alloc(bytes); }
void harness_host_reserve(size_t bytes) { workers_host_reserve(bytes); }
void harness_host_free(void *p) { workers_host_free(p); }
void harness_device_private(int on) { workers_device_private(on); }


/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                     */

/* ------------------------------------------------------------------------------------------ */
/* Device memory: whose is missing when the grader runs short                                  */

static int memory_reclaimed; /* a `reclaim` record was written in this check */

void reclaim_begin_check(void)
{
    memory_reclaimed = 0;
}

/* The grader (the harness here, or the reference's worker: `who`) ran short of device memory:
 * end the student's worker, whose allocations count against the same device, and record what
 * that gave back. The driver judges from these figures whose the shortage was (a student's
 * process that held the memory fails the check; the machine's shortage is an error). `needed`:
 * the bytes asked for, 0 if unknown. */
void emit_reclaim(const char *who, size_t needed)
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
void *harness_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (workers_try_device_alloc(bytes, &p) == cudaSuccess)
        return p;
    emit_reclaim("harness", bytes);
    if (workers_try_device_alloc(bytes, &p) == cudaSuccess)
        return p;
    cuda_fail(cudaErrorMemoryAllocation, "allocating a buffer of the check", __FILE__, __LINE__);
}

void on_cuda_error(cudaError_t err, const char *call, const char *file, int line)
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

const char *impl_who(int impl)
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
void emit_worker_failure(const worker_failure *f, cudaStream_t s)
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

void emit_device(const device_info *d, double clock_mhz)
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
void emit_verify(const verify_result *v, const char *impl, const char *note)
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

void call_and_verify(const lab_task *t, void *p, int impl, cudaStream_t s,
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
/* A check's problem size                                                                      */

/* Check c's size (index: its place in the table): the table's (under the emulator, its emu_size
 * where it has one), a hidden one drawn from the seed, or a speed check's from the device. */
void sizes_for(const lab_check *c, const lab_task *t, int index, uint64_t seed,
               const device_info *d, long long size[LAB_MAX_DIMS])
{
    memcpy(size, lab_check_size(c, d->emulated), sizeof c->size);
    if (c->kind == CHECK_HIDDEN) {
        rng r;
        rng_seed(&r, rng_derive(seed, (uint64_t)index));
        t->hidden_size(&r, size);
        if (d->emulated) /* a size the CPU does in seconds, as the visible cases' */
            emu_hidden_size(served_lab(), c, t->hidden_size, &r, size);
    } else if (c->kind == CHECK_SPEED) {
        lab_speed_problem_size(served_lab(), c, d, size);
        lab_footprint f;
        served_lab()->footprint(c->task, size, &f);
        if (f.working_set < (double)f.l2_multiple * d->l2_bytes && !d->emulated)
            fprintf(stderr, "note: lab %s: the timed problem touches %.0f MiB, under %dx the L2 "
                    "(%zu MiB) here: the device's memory allows no more\n", served_lab()->name,
                    f.working_set / (1 << 20), f.l2_multiple, d->l2_bytes >> 20);
    }
}
