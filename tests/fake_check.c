/* fake_check.c - stands in for one check in the lab's harness, in the driver's tests:
 * misbehaves on request.
 *
 *   fake_check RESULTS_FILE      (FAKE_MODE=mode in the environment)
 *
 * It does not speak the harness's command pipe (grader/harness/harness.cu): the driver's tests start
 * it as a plain child (run_child) and decide (decide_check) from how it ended and the records
 * it wrote, as the driver does for each check of a harness. It does what FAKE_MODE says: pass, wrong, guard, input, cuda, nodevice, segv,
 * hang, exit7, garbage, truncated, noend, slow, near, slowed, slowed-again, slowed-once,
 * left-running, left-noise, oom-held, oom-held-error, oom-reference, oom-machine, impossible,
 * skipped, chatty. Records are written with the real writer (grader/wire/records.c), as the
 * harness's are. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "../grader/wire/records.h"

static void rec_begin(void)
{
    results_begin("begin");
    results_str("lab", "fake");
    results_emit();
    results_begin("case");
    results_str("size", "33 x 33");
    results_emit();
}

static void rec_correct(long long bad, int guard_ok, int input_ok)
{
    results_begin("correct");
    results_str("impl", "student");
    results_int("n", 1089);
    results_int("bad", bad);
    results_str("detail", bad ? "3 of 1089 elements wrong; first at index 34 (row 1, col 1): got "
                                "1.5, expected 2.25" : "all 1089 elements right");
    results_int("guard_ok", guard_ok);
    if (!guard_ok)
        results_int("guard_at", 1089 * 4 + 8);
    results_int("input_ok", input_ok);
    if (!input_ok)
        results_int("input_at", 12);
    results_str("problem", "");
    results_emit();
}

/* How a fake speed check's samples look. */
typedef struct fake_speed {
    double ratio;   /* reference time / student time */
    double slowed;  /* the reference alone (phase 1) this many times faster than beside */
    int again;      /* 1: measured again (beside and alone, phase 2) */
    double slowed2; /* ... with the reference alone this many times faster than beside */
    int left;       /* units after which the student's work ran on (12.5 ms), of 30 */
    int ref_left;   /* units after which the reference's did (1.5 ms) */
    double bound;   /* the hardware's peak rate (0: none) */
    const char *watch; /* the GPU watch's word (gpu_watch), or NULL: no such field */
    int watch_again;   /* timed again after a throttled first phase */
} fake_speed;

/* 30 rounds with reference/student time ratio `ratio` (each time plus a null call of 0.3 ms
 * through the same path) and a little noise, with what the idle probe saw after each call;
 * then the reference alone, and perhaps both again (see fake_speed). */
static void rec_speed_with(const fake_speed *f)
{
    for (int i = 0; i < 30; i++) {
        const double stu = 2.0 + 0.01 * (i % 5);
        results_begin("sample");
        results_num("stu_ms", stu + 0.3);
        results_num("stu_left_ms", i < f->left ? 12.5 : 0);
        results_int("stu_busy_before", 0);
        results_num("ref_ms", stu * f->ratio + 0.3);
        results_num("ref_left_ms", i < f->ref_left ? 1.5 : 0);
        results_int("ref_busy_before", 0);
        results_num("null_ms", 0.3);
        results_num("null_left_ms", 0);
        results_int("null_busy_before", 0);
        results_emit();
    }
    for (int i = 0; i < 15; i++) {
        results_begin("alone");
        results_int("phase", 1);
        results_num("ref_ms", 2.02 * f->ratio / f->slowed + 0.3);
        results_num("null_ms", 0.3);
        results_emit();
    }
    for (int i = 0; f->again && i < 15; i++) {
        results_begin("beside");
        results_int("phase", 2);
        results_num("stu_ms", 2.3);
        results_num("ref_ms", 2.02 * f->ratio + 0.3);
        results_num("null_ms", 0.3);
        results_emit();
    }
    for (int i = 0; f->again && i < 15; i++) {
        results_begin("alone");
        results_int("phase", 2);
        results_num("ref_ms", 2.02 * f->ratio / f->slowed2 + 0.3);
        results_num("null_ms", 0.3);
        results_emit();
    }
    results_begin("speed");
    results_num("work", 4e9);
    results_str("unit", "GB/s");
    results_str("ceiling", "cudaMemcpy D2D");
    results_num("ceiling_ms", 1.0);
    results_num("bound_rate", f->bound);
    results_int("calls_per_unit", 1);
    if (f->watch) {
        results_str("gpu_watch", f->watch);
        results_str("gpu_watch_why", !strcmp(f->watch, "throttled")
                                         ? "the power cap held the clock down (SM clock 1755-1980 MHz while timed)"
                                         : "quiet (SM clock 1980 MHz, 30 readings)");
        results_int("gpu_watch_again", f->watch_again);
    }
    results_emit();
}

static void rec_speed(double ratio, double slowed, double bound)
{
    const fake_speed f = {ratio, slowed, 0, 1.0, 0, 0, bound};
    rec_speed_with(&f);
}

/* The harness ran short of device memory: what ending the student's process gave back. */
static void rec_reclaim(const char *who, double needed, double before, double after)
{
    results_begin("reclaim");
    results_str("who", who);
    results_num("needed", needed);
    results_int("student_ended", 1);
    results_num("free_before", before);
    results_num("free_after", after);
    results_num("total", 140e9);
    results_emit();
}

static void rec_oom(const char *who)
{
    results_begin("error");
    results_str("who", who);
    results_str("kind", "cuda");
    results_str("name", "cudaErrorMemoryAllocation");
    results_str("message", "out of memory");
    results_str("call", "allocating a buffer of the check");
    results_str("where", "grader/harness/harness.cu:80");
    results_emit();
}

static void rec_end(void)
{
    results_begin("end");
    results_emit();
}

int main(int argc, char **argv)
{
    const char *path = argc == 2 ? argv[1] : NULL;
    const char *mode = getenv("FAKE_MODE");
    if (!path || !mode)
        return 4;
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    results_set_fd(fd);
    rec_begin();
    if (!strcmp(mode, "pass") || !strcmp(mode, "chatty")) {
        if (!strcmp(mode, "chatty"))
            for (int i = 0; i < 1000; i++)
                printf("debug print %d from a kernel\n", i);
        rec_correct(0, 1, 1);
        rec_speed(1.0, 1.0, 0);
    } else if (!strcmp(mode, "wrong")) {
        rec_correct(3, 1, 1);
    } else if (!strcmp(mode, "guard")) {
        rec_correct(0, 0, 1);
    } else if (!strcmp(mode, "input")) {
        rec_correct(0, 1, 0);
    } else if (!strcmp(mode, "slow")) {
        rec_correct(0, 1, 1);
        rec_speed(0.25, 1.0, 0);
    } else if (!strcmp(mode, "near")) { /* just under the pass mark of 0.8 */
        rec_correct(0, 1, 1);
        rec_speed(0.7996, 1.0, 0);
    } else if (!strcmp(mode, "slowed")) { /* the reference ran 30% slower beside the student */
        rec_correct(0, 1, 1);
        rec_speed(1.0, 1.3, 0);
    } else if (!strcmp(mode, "slowed-again")) { /* ... and again, each of 3 comparisons */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.3, 1, 1.3, 0, 0, 0};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "slowed-once")) { /* ... once: not when measured again */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.3, 1, 1.0, 0, 0, 0};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "throttled")) { /* held down, timed again, held down again */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.0, 0, 1.0, 0, 0, 0, "throttled", 1};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "throttled-then-quiet")) { /* held down, then quiet timed again */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.0, 0, 1.0, 0, 0, 0, "quiet", 1};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "left-running")) { /* work ran on after 20 of 30 units */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.0, 0, 1.0, 20, 0, 0};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "left-noise")) { /* 2 slow probes after the student's, 1 after
                                                  * the reference's */
        rec_correct(0, 1, 1);
        const fake_speed f = {1.0, 1.0, 0, 1.0, 2, 1, 0};
        rec_speed_with(&f);
    } else if (!strcmp(mode, "oom-held")) { /* the student's held 130 GB: retried, went on */
        rec_reclaim("harness", 1e9, 0.4e9, 130.4e9);
        rec_correct(0, 1, 1);
    } else if (!strcmp(mode, "oom-held-error")) { /* the same, where the grader could not go on */
        rec_reclaim("harness", 0, 0.4e9, 130.4e9);
        rec_oom("harness");
        rec_end();
        return 3;
    } else if (!strcmp(mode, "oom-reference")) { /* the reference failed beside 130 GB held */
        rec_reclaim("reference", 0, 0.4e9, 130.4e9);
        rec_oom("reference");
    } else if (!strcmp(mode, "oom-machine")) { /* the student's process held 0.5 GB only */
        rec_reclaim("harness", 1e9, 0.4e9, 0.9e9);
        rec_oom("harness");
        rec_end();
        return 3;
    } else if (!strcmp(mode, "impossible")) { /* 2000 GB/s where the hardware peaks at 1000 */
        rec_correct(0, 1, 1);
        rec_speed(1.0, 1.0, 1000);
    } else if (!strcmp(mode, "skipped")) {
        results_begin("skipped");
        results_str("reason", "CPU emulation: there is no GPU to time");
        results_emit();
    } else if (!strcmp(mode, "cuda") || !strcmp(mode, "nodevice")) {
        results_begin("error");
        if (!strcmp(mode, "nodevice"))
            results_str("who", "harness"); /* the grader's own process found no GPU */
        results_str("kind", "cuda");
        results_str("name", !strcmp(mode, "cuda") ? "cudaErrorIllegalAddress" : "cudaErrorNoDevice");
        results_str("message", "an illegal memory access was encountered");
        results_str("call", "cudaDeviceSynchronize()");
        results_str("where", "grader/harness/harness.cu:123");
        results_emit();
        return 3;
    } else if (!strcmp(mode, "segv")) {
        raise(SIGSEGV);
    } else if (!strcmp(mode, "hang")) {
        if (fork() == 0) /* a grandchild, to check the whole group is killed */
            for (;;)
                pause();
        for (;;)
            pause();
    } else if (!strcmp(mode, "exit7")) {
        return 7;
    } else if (!strcmp(mode, "garbage")) {
        dprintf(fd, "Segmentation fault? no: this = not a record\n");
    } else if (!strcmp(mode, "truncated")) {
        dprintf(fd, "correct impl=student n=10 bad=0 guard_o");
        return 0;
    } else if (!strcmp(mode, "noend")) {
        rec_correct(0, 1, 1);
        return 0;
    }
    rec_end();
    return 0;
}
