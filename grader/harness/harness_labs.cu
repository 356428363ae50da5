/* harness_labs.cu - TRUSTED PROCESS (the harness): the lab it serves, and --serve's loop of
 * command lines. A lab's trusted problem code (grader/labs/NN-name/problem.cu, its table.c and
 * its libraries: lab.mk's LIBS_name) is a shared object, .grader/<lab>/problem.so, which this
 * program loads (served_lab_load) and keeps loaded for its whole life (CUDA code is never
 * unloaded). One harness process serves every lab of a driver's run, one after the other:
 *
 *   lab name=NAME problem=SO student=SO reference=SO log=FILE   -> "lab ready"
 *   check ... (check_line.h)                                     -> "done N"
 *   end                                                          -> "ended"
 *
 * `lab` ends the lab before if one is served, points this process's stdout and stderr at the
 * new lab's harness log, loads the lab and starts its student's worker; `end` ends the lab: its
 * workers, its shared memory, its per-lab state (listed in README.md, "One harness, many
 * labs"), and checks that the GPU context carries nothing into the next lab. Where it finds
 * anything left or wrong, the harness says so in the lab's log and exits: the driver starts a
 * fresh one for the next lab. Under the fallback (student code loaded into this process, no
 * sandbox) a harness serves one lab: a second `lab` line ends it the same way. */
#include "harness_parts.h"

#include <dlfcn.h>

static const lab_info *lab_now; /* the lab served (its problem.so's harness_lab), or NULL */
static const lab_task *tasks_now; /* and its tasks (harness_tasks) */
static char served_reference[4096]; /* the lab's reference.so (harness_reference_object) */
static int labs_served;             /* labs begun in this process */

const lab_info *served_lab(void) { return lab_now; }
const lab_task *served_tasks(void) { return tasks_now; }

const char *harness_reference_object(void)
{
    return served_reference[0] ? served_reference : NULL;
}

void served_reference_set(const char *so)
{
    snprintf(served_reference, sizeof served_reference, "%s", so ? so : "");
}

/* The problem a harness started by PATH serves when no --problem names one: problem.so beside
 * PATH (.grader/<lab>/harness, a link to the one harness, has the lab's problem.so beside it). */
const char *served_problem_beside(const char *argv0)
{
    static char path[4096];
    const char *slash = strrchr(argv0, '/');
    if (!slash)
        return "problem.so";
    snprintf(path, sizeof path, "%.*s/problem.so", (int)(slash - argv0), argv0);
    return path;
}

void served_lab_load(const char *so)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL); /* (kept loaded: CUDA code is never unloaded) */
    if (!h)
        fatal("cannot load the lab's problem %s: %s", so, dlerror());
    const lab_info *const *lab = (const lab_info *const *)dlsym(h, "harness_lab");
    const lab_task *tasks = (const lab_task *)dlsym(h, "harness_tasks");
    const int *n_tasks = (const int *)dlsym(h, "harness_n_tasks");
    if (!lab || !*lab || !tasks || !n_tasks || *n_tasks <= 0)
        fatal("%s is not a lab's problem (it defines no harness_lab, harness_tasks and "
              "harness_n_tasks)", so);
    for (int i = 0; i < (*lab)->n_checks; i++)
        if ((*lab)->checks[i].task < 0 || (*lab)->checks[i].task >= *n_tasks)
            fatal("%s: check %d names task %d of %d", so, i, (*lab)->checks[i].task, *n_tasks);
    lab_now = *lab;
    tasks_now = tasks;
}

/* The lab served is over: its workers ended, its shared memory given back, its per-lab state
 * reset, and the device checked; its costs line (GRADER_COSTS=1) into its log, after check
 * `last`. Exits where anything of the lab is left or the context reports an error. */
static void served_lab_end(int costs, int last)
{
    workers_lab_end(); /* (the reference's worker may be kept: workers_lab_keep) */
    workers_host_reserved_end();
    const int held = workers_lab_memory_end();
    workers_lab_keep();
    harness_problems_clear();
    prewarm_reset();
    harness_set_device_only(0);
    workers_device_private(0);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
#if !defined(CUDA_EMU)
    /* (a lab's persisting accesses, which none sets today, would carry into the next) */
    if (e == cudaSuccess && cudaCtxResetPersistingL2Cache() != cudaSuccess)
        (void)cudaGetLastError(); /* (a GPU without persisting L2: nothing to reset) */
    if (e == cudaSuccess)
        e = cudaPeekAtLastError();
#endif
    if (costs)
        workers_costs_report(2, last);
    workers_costs_reset();
    /* (GRADER_LAB_END_TEST=left: a leftover made up, for tests/emu/onehar.sh) */
    const char *test = getenv("GRADER_LAB_END_TEST");
    const int made_up = test && !strcmp(test, "left");
    if (held > 0 || e != cudaSuccess || made_up) {
        fprintf(stderr, "harness: the lab's end left %s%s%s%s: this harness serves no further "
                "lab (the driver starts a fresh one)\n",
                held > 0 ? "shared memory still held" : "", held > 0 && e ? " and " : "",
                e ? cudaGetErrorString(e) : "",
                made_up ? "a leftover made up by GRADER_LAB_END_TEST=left" : "");
        workers_shutdown(); /* (the reference's, kept: ended with this process) */
        exit(5);
    }
    fprintf(stderr, "harness: lab %s ended; its memory is gone, and its workers but the "
            "reference's where it is kept\n", lab_now->name);
    lab_now = NULL;
    tasks_now = NULL;
    served_reference_set(NULL);
}

/* Lab c begins: its log in place of stdout and stderr, its problem loaded, its objects given to
 * the workers, the device's free memory read again (every process of the lab before has
 * ended), and its student's worker started. */
static void served_lab_begin(const lab_cmd *c, device_info *d)
{
    if (labs_served > 0 && !workers_isolated()) {
        fprintf(stderr, "harness: student code may have been loaded into this process (no "
                "sandbox): it serves no further lab\n");
        exit(5);
    }
    fflush(stdout);
    fflush(stderr);
    const int log = open(c->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0)
        fatal("cannot write the lab's log %s", c->log);
    dup2(log, 2);
    dup2(log, 1);
    close(log);
    served_lab_load(c->problem);
    if (strcmp(lab_now->name, c->name))
        fatal("%s is lab %s's problem, not %s's", c->problem, lab_now->name, c->name);
    labs_served++;
    served_reference_set(c->reference);
    workers_set_so(IMPL_STUDENT, c->student);
    workers_set_so(IMPL_REFERENCE, c->reference);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    d->free_mem_bytes = free_b;
    fprintf(stderr, "harness: lab %s begins (lab %d of this harness)\n", c->name, labs_served);
    workers_prewarm(IMPL_STUDENT);
}

/* --serve's loop: `lab`, `check` and `end` lines from the driver until it closes stdin. Answers
 * go to reply_fd; each check's records to the file its line names. */
int serve_lines(device_info *d, int reply_fd, const char *why)
{
    static char line[LAB_LINE_MAX + 2];
    /* GRADER_COSTS=1 (tests/gpu/scaling.sh): the seconds of the driver's calls, into the log */
    const char *costs_env = getenv("GRADER_COSTS");
    const int costs = costs_env && !strcmp(costs_env, "1");
    int last = -1;
    while (fgets(line, sizeof line, stdin)) {
        const char *bad = "no such check in this lab";
        if (!strncmp(line, "lab ", 4)) {
            lab_cmd c;
            if (lab_line_parse(line, &c, &bad) != 0)
                fatal("bad command from the driver (%s): %s", bad, line);
            if (lab_now)
                served_lab_end(costs, last);
            served_lab_begin(&c, d);
            last = -1;
            dprintf(reply_fd, "lab ready\n");
            continue;
        }
        if (!strcmp(line, "end\n")) {
            if (!lab_now)
                fatal("bad command from the driver (no lab to end)");
            served_lab_end(costs, last);
            dprintf(reply_fd, "ended\n");
            continue;
        }
        check_cmd c;
        if (!lab_now)
            fatal("bad command from the driver (a check before its lab): %s", line);
        if (check_line_parse(line, &c, &bad) != 0 || c.check >= lab_now->n_checks)
            fatal("bad command from the driver (%s): %s", bad, line);
        const int fd = open(c.records, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            fatal("cannot write records to %s", c.records);
        results_set_fd(fd);
        run_check(&c, d, why);
        close(fd);
        fflush(stdout);
        dprintf(reply_fd, "done %d\n", c.check);
        prewarm_after(c.check, d);
        last = c.check;
        if (costs) /* so far: the lab's end writes the last one, its workers' ends counted */
            workers_costs_report(2, c.check);
    }
    workers_host_reserved_end();
    workers_shutdown();
    return 0;
}
