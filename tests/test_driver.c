/* test_driver.c - the driver against real child processes (tests/fake_check.c), not mocks:
 * a check that passes, is wrong, crashes, hangs, exits non-zero, prints garbage, dies
 * mid-record, or reports a CUDA error. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../grader/decide/verdict.h"
#include "../grader/wire/child.h"
#include "suites.h"

static const lab_check checks[] = {
    {"33 x 33", CHECK_VISIBLE, 0, {33, 33}, 1},
    {"speed", CHECK_SPEED, 0, {0}, 5},
};
static const lab_info lab = {.number = "99", .name = "fake", .title = "A fake lab",
                             .threshold = 0.8, .hint_correct = "HINT-CORRECT",
                             .hint_speed = "HINT-SPEED", .timeout_s = 10, .checks = checks,
                             .n_checks = 2};

/* Run the fake check in `mode` for check `c` with a time limit; decide. */
static void run_mode(const char *mode, int c, double timeout, check_decision *d, child_outcome *o)
{
    char results[] = "/tmp/driver-test-results-XXXXXX";
    char log[] = "/tmp/driver-test-log-XXXXXX";
    close(mkstemp(results));
    close(mkstemp(log));
    setenv("FAKE_MODE", mode, 1);
    char *argv[] = {(char *)fake_check_path, results, NULL};
    CU_ASSERT_EQUAL(run_child(argv, log, timeout, o), 0);
    o->isolated = 1; /* it stands for a harness whose greeting said student code is isolated */
    record_list l;
    read_records(results, &l);
    decide_check(&lab, &checks[c], 0.8, o, &l, d);
    free_records(&l);
    remove(results);
    remove(log);
}

static void test_pass_and_wrong(void)
{
    check_decision d;
    child_outcome o;
    run_mode("pass", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(o.exited, 1);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    run_mode("pass", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ratio, 1.0, 1e-9);
    run_mode("chatty", 0, 10, &d, &o); /* a student's printf does not disturb the records */
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    run_mode("wrong", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "got 1.5, expected 2.25"));
    run_mode("guard", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "past its end"));
    run_mode("input", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "modified an input"));
}

/* Speed verdicts from the harness's samples: slow, a rate no hardware reaches, and skipped. */
static void test_speed_modes(void)
{
    check_decision d;
    child_outcome o;
    run_mode("slow", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.ratio, 0.25, 1e-9);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "0.25x the reference (needs 0.80x)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.detail, "short of the pass mark"));
    CU_ASSERT_TRUE(d.below_threshold); /* slow and nothing else: partial credit may apply */
    run_mode("near", 1, 10, &d, &o); /* never "0.80x ... (needs 0.80x) FAIL" */
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "0.7996x the reference (needs 0.80x)"));
    run_mode("impossible", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "faster than the hardware"));
    CU_ASSERT_FALSE(d.below_threshold);
    run_mode("skipped", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_SKIP);
}

/* A slowed reference and work left running: a verdict against the student only on evidence,
 * and a message that states it. */
static void test_evidence(void)
{
    check_decision d;
    child_outcome o;
    run_mode("slowed", 1, 10, &d, &o); /* 30% slower, measured once: a note, no accusation */
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.blame, "");
    CU_ASSERT_EQUAL(d.speed.n_slowdowns, 1);
    CU_ASSERT_DOUBLE_EQUAL(d.speed.slowdowns[0], 0.3, 1e-6);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "in one measurement: not evidence, no verdict "
                                             "changed"));
    run_mode("slowed-once", 1, 10, &d, &o); /* ... and not when measured again */
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.blame, "");
    CU_ASSERT_EQUAL(d.speed.n_slowdowns, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "within noise, no verdict changed"));
    run_mode("slowed-again", 1, 10, &d, &o); /* 30% slower each of 3 times: evidence */
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_STRING_EQUAL(d.blame, "slowed-reference");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "30% slower beside your code than alone, each of the "
                                             "3 times it was measured (30%, 30%, 30%; 30 and 15 "
                                             "rounds beside, 15 and 15 alone), beyond this lab's "
                                             "noise of 10%"));
    CU_ASSERT_FALSE(d.below_threshold); /* a slowed reference earns nothing */
    /* the GPU watch: a clock held down in both timings is a note, never a change of verdict;
     * a first timing held down and a second quiet one, no note (the verdict rests on it) */
    run_mode("throttled", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.speed.gpu_watch, "throttled");
    CU_ASSERT_EQUAL(d.speed.gpu_watch_again, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "the GPU's clock was held down while this was timed "
                                             "(the power cap held the clock down"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "and again when timed once more"));
    run_mode("throttled-then-quiet", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.speed.gpu_watch, "quiet");
    CU_ASSERT_PTR_NULL(strstr(d.message, "held down"));
    run_mode("pass", 1, 10, &d, &o); /* an older harness's record: no watch, no note */
    CU_ASSERT_STRING_EQUAL(d.speed.gpu_watch, "");
    run_mode("left-running", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_STRING_EQUAL(d.blame, "left-running");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "still running on the GPU after your call returned: "
                                             "after 20 of your 30 timed units the GPU stayed busy "
                                             "up to 12.5 ms (median 12.5 ms), idle before each; "
                                             "after the reference's, 0 of 30"));
    run_mode("left-noise", 1, 10, &d, &o); /* a few slow probes on both sides: no evidence */
    CU_ASSERT_EQUAL(d.v, VERDICT_OK);
    CU_ASSERT_STRING_EQUAL(d.blame, "");
    CU_ASSERT_EQUAL(d.speed.left_units, 2);
    CU_ASSERT_EQUAL(d.speed.left_ref_units, 1);
}

/* The grader short of device memory: the student's when its process held it, else an error of
 * the machine's with the figures. */
static void test_memory_blame(void)
{
    check_decision d;
    child_outcome o;
    run_mode("oom-held", 0, 10, &d, &o); /* retried after ending it, and went on: still its fault */
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_STRING_EQUAL(d.blame, "gpu-memory");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "out of GPU memory: the grader needed 954 MiB for "
                                             "this check and found 381 MiB free, while your "
                                             "process held 121.1 GiB of the GPU's 130.4 GiB"));
    run_mode("oom-held-error", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "out of GPU memory: the grader ran short"));
    run_mode("oom-reference", 1, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "the reference's process failed"));
    run_mode("oom-machine", 0, 10, &d, &o); /* its process held little: not its doing */
    CU_ASSERT_EQUAL(d.v, VERDICT_ERROR);
    CU_ASSERT_STRING_EQUAL(d.blame, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "could not run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "ending the student's process gave back 477 MiB"));
}

static void test_crash_hang_exit(void)
{
    check_decision d;
    child_outcome o;
    run_mode("segv", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(o.exited, 0);
    CU_ASSERT_EQUAL(o.signal, SIGSEGV);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "crashed: Segmentation fault (signal 11) in fake"));

    run_mode("hang", 0, 0.5, &d, &o);
    CU_ASSERT_EQUAL(o.timed_out, 1);
    CU_ASSERT(o.seconds >= 0.5 && o.seconds < 5);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "hung"));

    run_mode("exit7", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(o.status, 7);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "status 7"));

    run_mode("noend", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "without reporting"));
}

static void test_garbage_and_cuda_errors(void)
{
    check_decision d;
    child_outcome o;
    run_mode("garbage", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "garbage"));
    run_mode("truncated", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "unterminated"));
    run_mode("cuda", 0, 10, &d, &o);
    CU_ASSERT_EQUAL(o.status, 3);
    CU_ASSERT_EQUAL(d.v, VERDICT_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "crashed: illegal memory access"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.detail, "grader/harness/harness.cu:123"));
    run_mode("nodevice", 0, 10, &d, &o); /* no GPU is not the student's fault */
    CU_ASSERT_EQUAL(d.v, VERDICT_ERROR);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "could not run"));
}

static void test_missing_program(void)
{
    child_outcome o;
    char log[] = "/tmp/driver-test-log-XXXXXX";
    close(mkstemp(log));
    char *argv[] = {"/nonexistent/harness", NULL};
    CU_ASSERT_EQUAL(run_child(argv, log, 5, &o), -1);
    CU_ASSERT_EQUAL(o.status, 127);
    remove(log);
}

/* The run's label from a harness's greeting: isolated only when the greeting says so with a
 * sandbox's name, the driver asked for isolation and finds a sandbox itself; the device is
 * the greeting's. */
static void test_greeting(void)
{
    static const struct {
        const char *line;  /* the greeting's first line */
        int asked, seen;   /* the driver asked for isolation, finds a sandbox */
        int isolated;      /* the label */
        const char *says;  /* in its detail */
    } rows[] = {
        {"isolation tamper_proof=1 sandbox=namespaces detail=own%20view", 1, 1, 1, "own view"},
        {"isolation tamper_proof=1 sandbox=landlock detail=Landlock", 1, 1, 1, "Landlock"},
        {"isolation tamper_proof=0 sandbox=none detail=no%20IPC", 1, 1, 0, "no IPC"},
        {"isolation tamper_proof=1 sandbox=namespaces detail=forged", 0, 1, 0, "switched off"},
        {"isolation tamper_proof=1 sandbox=namespaces detail=forged", 1, 0, 0, "finds no sandbox"},
        {"isolation tamper_proof=1 detail=no%20sandbox%20named", 1, 1, 0, "no sandbox named"},
        {"isolation tamper_proof=1 sandbox=chroot detail=x", 1, 1, 0, "x"},
        {"device name=GPU", 1, 1, 0, "did not say"},
        {"garbage = = %zz", 1, 1, 0, "did not say"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        greeting g;
        memset(&g, 0, sizeof g);
        greeting_take(&g, 0, rows[i].line, rows[i].asked, rows[i].seen);
        CU_ASSERT_EQUAL(g.heard, 1);
        CU_ASSERT_EQUAL(g.isolated, rows[i].isolated);
        CU_ASSERT_PTR_NOT_NULL(strstr(g.detail, rows[i].says));
        CU_ASSERT_STRING_EQUAL(g.sandbox, rows[i].isolated ? strstr(rows[i].line, "landlock")
                                                             ? "landlock" : "namespaces" : "none");
    }
    greeting g;
    memset(&g, 0, sizeof g);
    greeting_take(&g, 1, "device name=H200 sms=132", 1, 1);
    CU_ASSERT_STRING_EQUAL(record_get(&g.device, "name"), "H200");
    greeting_take(&g, 1, "isolation tamper_proof=1", 1, 1); /* not a device: kept as it was */
    CU_ASSERT_STRING_EQUAL(record_get(&g.device, "sms"), "132");
    record_free(&g.device);
}

/* Under the CPU emulator a check names the size it runs, and the GPU's beside it; on a GPU,
 * and where the emulator runs the table's size, the name is the table's. Every lab's table:
 * no emulated check's name keeps a number of the GPU's size outside its "(on a GPU: ...)". */
static void test_check_name_as_run(void)
{
    char out[256];
    const lab_check big = {"n = 100000007: prime, large", CHECK_VISIBLE, 0, {100000007}, 1, {8388617}};
    check_name_as_run(&big, 1, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "n = 8388617: prime, large (on a GPU: n = 100000007)");
    check_name_as_run(&big, 0, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "n = 100000007: prime, large");
    const lab_check mib = {"n = 4194311: 16 MiB and a ragged end", CHECK_VISIBLE, 0, {4194311, 4, 1}, 1,
                           {1048583, 4, 1}};
    check_name_as_run(&mib, 1, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "n = 1048583: 4 MiB and a ragged end (on a GPU: n = 4194311)");
    const lab_check dims = {"3 x 1000 x 4097: long K, odd", CHECK_VISIBLE, 0, {3, 1000, 4097}, 1, {3, 250, 4097}};
    check_name_as_run(&dims, 1, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "3 x 250 x 4097: long K, odd (on a GPU: 3 x 1000 x 4097)");
    const lab_check same = {"n = 33: a warp and one", CHECK_VISIBLE, 0, {33}, 1, {0}};
    check_name_as_run(&same, 1, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "n = 33: a warp and one");
    for (int k = 0; k < n_all_labs; k++)
        for (int i = 0; i < all_labs[k]->n_checks; i++) {
            const lab_check *c = &all_labs[k]->checks[i];
            if (c->kind != CHECK_VISIBLE || !c->emu_size[0])
                continue;
            check_name_as_run(c, 1, out, sizeof out);
            char *gpu = strstr(out, " (on a GPU: ");
            CU_ASSERT_PTR_NOT_NULL_FATAL(gpu);
            *gpu = 0;
            for (int d = 0; d < LAB_MAX_DIMS; d++)
                if (c->size[d] != c->emu_size[d] && c->emu_size[d]) {
                    char was[32];
                    snprintf(was, sizeof was, "%lld", c->size[d]);
                    if (strstr(out, was))
                        printf("\n  %s: %s still names %s\n", all_labs[k]->name, out, was);
                    CU_ASSERT_PTR_NULL(strstr(out, was));
                }
        }
}

/* proc_tree_signal pauses a whole piece of work: a grandchild in a process group and session
 * of its own (as a sandboxed compiler or worker is) stops counting with SIGSTOP and counts on
 * after SIGCONT. */
static void test_tree_pause(void)
{
    volatile unsigned long *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CU_ASSERT_PTR_NOT_EQUAL((void *)count, MAP_FAILED);
    if ((void *)count == MAP_FAILED)
        return;
    *count = 0;
    const pid_t child = fork();
    if (child == 0) {
        if (fork() == 0) {
            setsid(); /* (out of its parent's group and session) */
            for (;;)
                (*count)++;
        }
        for (;;)
            pause();
    }
    struct timespec nap = {0, 100 * 1000 * 1000};
    nanosleep(&nap, NULL);
    CU_ASSERT(*count > 0);
    CU_ASSERT_EQUAL(proc_tree_signal(child, SIGSTOP), 2);
    nanosleep(&nap, NULL);
    const unsigned long stopped_at = *count;
    nanosleep(&nap, NULL);
    CU_ASSERT_EQUAL(*count, stopped_at);
    CU_ASSERT_EQUAL(proc_tree_signal(child, SIGCONT), 2);
    nanosleep(&nap, NULL);
    CU_ASSERT(*count > stopped_at);
    proc_tree_signal(child, SIGKILL);
    waitpid(child, NULL, 0);
    munmap((void *)count, 4096);
}

static CU_TestInfo driver_tests[] = {
    {"a piece of work paused and resumed whole, whatever its process groups", test_tree_pause},
    {"passing, wrong, out-of-bounds and input-modifying checks", test_pass_and_wrong},
    {"slow, impossible and skipped speed checks", test_speed_modes},
    {"a slowed reference or work left running, blamed only on evidence", test_evidence},
    {"a shortage of GPU memory: the student's process, or the machine", test_memory_blame},
    {"crashing, hanging and failing checks", test_crash_hang_exit},
    {"garbage, truncated records and CUDA errors", test_garbage_and_cuda_errors},
    {"a harness that cannot start", test_missing_program},
    {"the run's label from the harness's greeting and what the driver asked and saw", test_greeting},
    {"check names state the size run, under the emulator the GPU's beside it", test_check_name_as_run},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo driver_suite = {"driver", NULL, NULL, NULL, NULL, driver_tests};
