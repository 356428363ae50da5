/* profile_trusted.cu - TRUSTED PROCESS (the harness), for make profile: each speed check's
 * problem, built as the speed check builds it, and each implementation (yours, then the
 * reference) called once after a warm-up call, in a section of its own. The CPU emulator's
 * counts take the first call, with no warm-up: the emulator has no module to load and no cache
 * to warm, and counts work, not time, so a first call counts what a later one does (code that
 * does some work on its first call only, such as filling a workspace it keeps, shows that work
 * too). A warm-up call there doubled the count's time (lab 07's skeleton: 2.4 of the 8.4
 * CPU-seconds of its make grade).
 *
 * Counters (Nsight Compute, grader/feedback/profile.sh): a section is one profiler range
 * (cudaProfilerStart/Stop) that begins with grader_profile_section<<<section, 1>>>, so the
 * kernels of a section are those after its marker in the profiler's report. Timeline (a lab
 * whose lesson is overlap): the section's copies and kernels, from CUDA events
 * (timeline_trusted.c). Each section is announced on stdout:
 *   section N <tab> check C <tab> TASK <tab> yours|reference <tab> SIZE
 *
 * For a profiler, calls run in this process (the harness is started with --isolation off): a
 * profiler follows one process, and profiling decides no grade.
 *
 * Under the CPU emulator (make explain, make grade's WHERE line: counts_path) the same sections
 * are ranges in which the emulator counts every warp's memory requests, branches and launches,
 * and writes down every copy, kernel and event in issue order (common/emu/src/count.cpp),
 * without the marker: make explain orders those on the engines (grader/feedback/timeline.awk).
 * The counting runs where grading runs the code, in each implementation's own sandboxed worker
 * (PROTO_COUNT_BEGIN / _END): the harness hands the worker a fresh memfd per section, and
 * afterwards copies what the worker wrote there into counts_path as data (relay_counts). A
 * measured timeline (--timeline) needs a GPU, since the emulator keeps no time. */
#include "../run/harness.h"
#include "profile_trusted.h"
#include "timeline_trusted.h"
#include "../run/worker_trusted.h"
#include "../../common/check.h"

#include <cuda_profiler_api.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The most a worker's counts of one section may be (bytes read back; a lab's run writes tens
 * of KiB). */
#define PROFILE_COUNTS_CAP (16 << 20)
#define PROFILE_COUNT_LINE 65536 /* longer lines are dropped */

/* Marks where a section's kernels begin in a profiler's report (its grid size is the
 * section's number). */
__global__ void grader_profile_section(int section) { (void)section; }

/* Copies what a worker wrote to fd (at most PROFILE_COUNTS_CAP bytes) into out as section
 * `section`'s counts. A worker numbers its own ranges, and holds student code: every line is
 * kept only if it starts with a count's keyword (range, request, loads, launch, op), a space,
 * a number and a tab, and its number is replaced by the section's, so that nothing a student's
 * worker writes lands in the reference's sections. The rest of each line is the worker's, data
 * that make explain's tools read as numbers and line numbers (grader/feedback/counts.awk).
 * Returns the lines kept. */
static long relay_counts(int fd, int section, FILE *out)
{
    static const char *const kinds[] = {"range ", "request ", "loads ", "launch ", "op "};
    static char line[PROFILE_COUNT_LINE];
    size_t len = 0, total = 0;
    long kept = 0;
    int too_long = 0;
    char buf[65536];
    ssize_t n;
    if (lseek(fd, 0, SEEK_SET) != 0)
        return 0;
    while (total < PROFILE_COUNTS_CAP && (n = read(fd, buf, sizeof buf)) > 0) {
        total += (size_t)n;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof line - 1)
                    line[len++] = buf[i];
                else
                    too_long = 1;
                continue;
            }
            line[len] = 0;
            for (size_t k = 0; !too_long && k < sizeof kinds / sizeof kinds[0]; k++) {
                const size_t kl = strlen(kinds[k]);
                if (strncmp(line, kinds[k], kl))
                    continue;
                size_t j = kl;
                while (j < len && line[j] >= '0' && line[j] <= '9')
                    j++;
                if (j > kl && j < len && line[j] == '\t') {
                    fprintf(out, "%.*s%d%s\n", (int)kl, kinds[k], section, line + j);
                    kept++;
                }
                break;
            }
            len = 0;
            too_long = 0;
        }
    }
    if (total >= PROFILE_COUNTS_CAP)
        fprintf(stderr, "profile: section %d's counts were cut at %d MiB\n", section,
                PROFILE_COUNTS_CAP >> 20);
    return kept;
}

/* One section: one call of implementation impl on problem p, counted into `counts` (the
 * emulator), drawn into the timeline `tl`, or else marked for Nsight Compute. */
static int profile_one(const lab_task *t, void *p, int impl, int section, FILE *counts, FILE *tl,
                       cudaStream_t s)
{
    t->prepare(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    int count_fd = -1;
    if (counts) { /* counted in the implementation's worker, into a file of ours */
        count_fd = memfd_create("counts", MFD_CLOEXEC);
        if (count_fd < 0) {
            fprintf(stderr, "profile: cannot make a file for the counts\n");
            return 1;
        }
        workers_count_begin(impl, count_fd);
    } else if (tl) {
#if !defined(CUDA_EMU)
        timeline_begin(s);
#endif
    } else {
        CUDA_CHECK(cudaProfilerStart());
#if !defined(CUDA_EMU) /* the emulator's counts need no marker: its range is the section */
        grader_profile_section<<<section, 1, 0, s>>>(section);
#endif
    }
    t->run(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (counts) {
        workers_count_end(impl);
        relay_counts(count_fd, section, counts);
        close(count_fd);
    } else if (tl) {
#if !defined(CUDA_EMU)
        timeline_end();
        timeline_write(tl, section);
#endif
    } else {
        CUDA_CHECK(cudaProfilerStop());
    }
    return 0;
}

int profile_run(const char *timeline_path, const char *counts_path, const char *worker_log,
                int emulator_size, const device_info *d)
{
    FILE *tl = NULL, *counts = NULL;
#if defined(CUDA_EMU)
    if (timeline_path) {
        fprintf(stderr, "profile: a timeline needs a GPU; the CPU emulator keeps no time\n");
        return 1;
    }
#endif
#if !defined(CUDA_EMU)
    if (counts_path) {
        fprintf(stderr, "profile: the counts are the CPU emulator's; this harness is a GPU build\n");
        return 1;
    }
#endif
    if (timeline_path && !(tl = fopen(timeline_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", timeline_path);
        return 1;
    }
    if (counts_path && !(counts = fopen(counts_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", counts_path);
        return 1;
    }
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    static jmp_buf jb;
    static worker_failure failure;
    workers_set_failure_target(&jb, &failure);
    workers_begin_check(600, worker_log);
    if (setjmp(jb)) {
        fprintf(stderr, "profile: the call of %s failed: %s\n",
                failure.impl == IMPL_STUDENT ? "your code" : "the reference", failure.detail);
        return 1;
    }
    int section = 0;
    for (int i = 0; i < harness_lab->n_checks; i++) {
        const lab_check *c = &harness_lab->checks[i];
        if (c->kind != CHECK_SPEED)
            continue;
        const lab_task *t = &harness_tasks[c->task];
        long long size[LAB_MAX_DIMS];
        memcpy(size, c->size, sizeof size);
        device_info sized = *d; /* the sizes are the labs' arithmetic on the device */
        sized.emulated |= emulator_size;
        harness_lab->speed_size(c->task, &sized, size);
        const uint64_t seed = 0x5eedull + (uint64_t)i;
        harness_device_only = 1;
        void *p = t->create(size, seed, d);
        harness_device_only = 0;
        t->refresh(p, seed, s);
        char desc[256];
        t->describe(p, desc, sizeof desc);
        static const int impls[2] = {IMPL_STUDENT, IMPL_REFERENCE};
        /* warm-up on a GPU: module loading, first-touch allocations (none for the emulator) */
        for (int k = 0; k < 2 && !counts; k++) {
            t->prepare(p, impls[k], s);
            t->run(p, impls[k], s);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        for (int k = 0; k < 2; k++) {
            section++;
            printf("section %d\tcheck %d\t%s\t%s\t%s\n", section, i, t->name,
                   k == 0 ? "yours" : "reference", desc);
            fflush(stdout);
            if (profile_one(t, p, impls[k], section, counts, tl, s) != 0)
                return 1;
        }
        t->destroy(p);
    }
    workers_end_check();
    CUDA_CHECK(cudaStreamDestroy(s));
    if (tl)
        fclose(tl);
    if (counts && fclose(counts) != 0) {
        fprintf(stderr, "profile: cannot write %s\n", counts_path);
        return 1;
    }
    return 0;
}
