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
 * handed back as data (profile_trusted.cu), with --second-counts FILE at a second size too (the
 * speed estimate compares the two). --list-checks: the lab's checks, one per line (make
 * sanitize runs the correctness ones). */
#include "harness_parts.h"

static int harness_device_only; /* (harness_device_only_mode, harness.h) */

int harness_device_only_mode(void)
{
    return harness_device_only;
}

void harness_set_device_only(int on)
{
    harness_device_only = on;
}

/* ------------------------------------------------------------------------------------------ */
/* One check                                                                                   */

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

int call_verified(const verify_result *v)
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
    if (call_verified(v) && wall_seconds() - start < SECOND_ORDER_BUDGET_S) {
        workers_set_schedule(word ^ 1);
        call_and_verify(t, p, IMPL_STUDENT, s, v);
 if (!call_verified(v))
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

/* Check o->check of the lab: its `begin` record, its problem run (a case, or a speed check), and
 * however it ended (a worker's failure lands at the setjmp below), everything it made freed and
 * its `end` record. Longer than most functions here: the setjmp and the statics that survive its
 * longjmp must sit in the one frame that frees them. */
void run_check(const check_cmd *o, const device_info *d, const char *isolation_why)
{
    const lab_info *lab = served_lab();
    const lab_check *c = &lab->checks[o->check];
    const lab_task *t = &served_tasks()[c->task];
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
    reclaim_begin_check();
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
    workers_device_speed_end(); /* (a failure while its problems were made) */
    workers_free_begin(); /* the check's buffers: unmapped in one message a worker */
    if (sc.k)
        speed_free(&sc);
    if (p)
        t->destroy(p);
    workers_free_end();
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
 * 05's pinned arrays), asked for at the size run_check will ask for (lab_speed_problem_size, as
 * sizes_for reads it, on the same device), and made together as workers_host_reserve_made
 * says; 1 if any was asked for. */
static int reserve_speed_memory(const device_info *d, int from)
{
    const lab_info *lab = served_lab();
    int any = 0;
    for (int i = from; i < lab->n_checks; i++) {
        const lab_check *ck = &lab->checks[i];
        if (ck->kind != CHECK_SPEED || !served_tasks()[ck->task].reserve)
            continue;
        long long size[LAB_MAX_DIMS];
        lab_speed_problem_size(lab, ck, d, size);
        served_tasks()[ck->task].reserve(size, d);
        any = 1;
    }
    workers_host_reserve_made();
    return any;
}

/* prewarm_after's once a lab: set after the lab's first check, reset at its end */
static int speed_prewarmed;

void prewarm_reset(void)
{
    speed_prewarmed = 0;
}

/* After check `done` was answered, while the driver reads the answer: the student's process
 * for the check that follows it in the table, for a speed check a fresh one (its phase 1
 * begins with one; the one that served the correctness checks ends now), for a correctness
 * check one if none runs (a crash ended it). Under the CPU emulator no speed check runs. */
void prewarm_after(int done, const device_info *d)
{
    const lab_info *lab = served_lab();
    if (done + 1 >= lab->n_checks)
        return;
    /* Once, after the first check answered, for the speed checks still to come (a GPU only:
     * under the CPU emulator nothing is timed): the reference's worker, which their setup
     * calls first, and their host memory (lab 05's pinned arrays), asked for at the size
     * run_check will ask for (sizes_for, the same device): made on a thread while the
     * correctness checks run where GRADER_PREWARM=1, else all together at the first one's use. */
    if (!speed_prewarmed && !d->emulated) {
        for (int i = done + 1; i < lab->n_checks; i++)
            if (lab->checks[i].kind == CHECK_SPEED)
                workers_prewarm(IMPL_REFERENCE);
        reserve_speed_memory(d, done + 1);
    }
    speed_prewarmed = 1;
    if (lab->checks[done + 1].kind == CHECK_SPEED) {
        if (!d->emulated)
            workers_fresh(IMPL_STUDENT);
    } else {
        workers_prewarm(IMPL_STUDENT);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                        */

static void usage(void)
{
    fprintf(stderr,
            "usage: harness --serve --worker EXE [--isolation on|off] [--require-isolation]\n"
            "                       [--checkout DIR] [--solutions DIR] [--labdir DIR]\n"
            "                       [--student-objs DIR] [--logs DIR] [--hide DIR ...]\n"
            "                       (every lab of a run: `lab`, `check` and `end` lines)\n"
            "       harness --serve --worker EXE --student SO --reference SO ...   (one lab)\n"
            "       harness --bench --worker EXE --reference SO --results FILE\n"
            "                       --variant NAME=SO ... [--cap S]\n"
            "       harness --profile --worker EXE --student SO --reference SO --isolation off\n"
            "                       [--timeline FILE] [--emulator-size]\n"
            "       harness --profile --worker EXE --student SO --reference SO --isolation on\n"
            "                       --counts FILE [--worker-log FILE] [--checkout DIR ...]\n"
            "                       [--reference-counts PREFIX] [--second-counts FILE]\n"
            "                       [--second-draw HEX] [--student-counts PREFIX]\n"
            "       harness --serve ... --isolation off --no-guards   (make sanitize)\n"
            "       harness --list-checks\n"
            "One lab's modes serve the lab of --problem SO, or of problem.so beside the path this\n"
            "program was started by (.grader/<lab>/harness).\n"
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
        {"second-counts", required_argument, NULL, 'S'},
        {"second-draw", required_argument, NULL, 'D'}, {"student-counts", required_argument, NULL, 'Y'},
        {"list-checks", no_argument, NULL, 'l'}, {"no-guards", no_argument, NULL, 'g'},
        {"problem", required_argument, NULL, 'P'},
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
        case 'K': o.reference_counts = optarg; break; case 'Y': o.student_counts = optarg; break;
        case 'S': o.second_counts = optarg; break;
        case 'D': profile_second_draw(strtoull(optarg, NULL, 16)); break;
        case 'l': o.list_checks = 1; break;
        case 'g': o.no_guards = 1; break;
        case 'P': o.problem = optarg; break;
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
    /* --serve with neither --student nor --reference: every lab of a run, each named by its
     * `lab` line (harness_labs.cu) */
    const int many = o.serve && !o.student_so && !o.reference_so;
    if (o.serve + o.bench + o.profile != 1 || !o.worker || (!many && !o.reference_so) ||
        (o.profile && !o.student_so) || (o.serve && !many && !o.student_so) ||
        (o.bench && !o.results) || (many && o.problem) ||
        /* profilers follow one process; the emulator's counts come from sandboxed workers */
        (o.profile && o.isolate != (o.counts != NULL)) || (o.no_guards && o.isolate) ||
        ((o.reference_counts || o.student_counts || o.second_counts) && !o.counts))
        usage();
    return o;
}

/* The harness's modes (--list-checks, --profile, --bench, --serve) after one set-up (the
 * device, the workers, the greeting), and --serve's loop of lines (harness_labs.cu). Longer
 * than most functions here: the greeting's order (before any student code can be in this
 * process) reads best as one sequence. */
int main(int argc, char **argv)
{
    const options o = parse_options(argc, argv);
    /* One lab's modes load it now; --serve for many labs loads each at its `lab` line. */
    const char *problem = o.problem ? o.problem : served_problem_beside(argv[0]);
    if (!o.serve || o.student_so)
        served_lab_load(problem);
    served_reference_set(o.reference_so);
    if (o.list_checks) { /* index, kind, name: make sanitize runs the correctness checks */
        static const char *const kinds[] = {"visible", "hidden", "speed"};
        for (int i = 0; i < served_lab()->n_checks; i++)
            printf("%d\t%s\t%s\n", i, kinds[served_lab()->checks[i].kind],
                   served_lab()->checks[i].name);
        return 0;
    }
    cuda_set_fail_hook(on_cuda_error);
    dbuf_set_allocator(harness_device_alloc, workers_device_free);
#if defined(CUDA_EMU)
    /* Under the CPU emulator every allocation has red zones of its own, right at its ends, and
     * an access there stops the kernel with a report at the student's line, block and thread;
     * guard bytes inside the allocation would hide a small overrun from them (and leave only
     * "wrote outside the output" after the call). So the emulator's build keeps none. */
    dbuf_set_guards(0);
#else
    dbuf_set_guards(!o.no_guards);
#endif
    device_info d;
    device_query(0, &d);
    char why[256];
    workers_hide(&o.hidden);
    workers_init(o.worker, o.student_so, o.reference_so, o.isolate, why, sizeof why);
    workers_idle_baseline(); /* (once a process: this process's own kernel, no worker yet) */
    if (o.profile && o.counts && !workers_isolated()) { /* never student code in this process */
        fprintf(stderr, "harness: the CPU emulator counts student code only in the grader's "
                        "sandbox, and this machine cannot give it one: %s (make doctor says more)\n",
                why);
        workers_shutdown();
        return 3;
    }
    if (o.profile) { /* a profiler's sections, or (under the emulator) make explain's counts */
        profile_keep_counts(o.reference_counts, o.student_counts, o.worker, problem,
                            o.reference_so, o.student_so);
        const int status = profile_run(o.timeline, o.counts, o.second_counts, o.worker_log,
                                       o.emulator_size, &d);
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
    /* One lab's: the student's worker starts (process, sandbox, GPU context) while the first
     * check makes its inputs; what the speed checks need ahead starts once that check is
     * answered (prewarm_after), not beside the student's start, which it would slow. (Many
     * labs': at each `lab` line.) */
    if (served_lab())
        workers_prewarm(IMPL_STUDENT);
    return serve_lines(&d, reply_fd, why);
}
