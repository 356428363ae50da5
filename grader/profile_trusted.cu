/* profile_trusted.cu - TRUSTED PROCESS (the harness), for make profile: each speed check's
 * problem, built as the speed check builds it, and each implementation (yours, then the
 * reference) called once after a warm-up call, in a section of its own.
 *
 * Counters (Nsight Compute, grader/tools/profile.sh): a section is one profiler range
 * (cudaProfilerStart/Stop) that begins with grader_profile_section<<<section, 1>>>, so the
 * kernels of a section are those after its marker in the profiler's report. Timeline (a lab
 * whose lesson is overlap): the section's copies and kernels, from CUDA events
 * (timeline_trusted.c). Each section is announced on stdout:
 *   section N <tab> check C <tab> TASK <tab> yours|reference <tab> SIZE
 *
 * Calls run in this process (the harness is started with --isolation off): a profiler follows
 * one process, and profiling decides no grade.
 *
 * Under the CPU emulator (make explain) the same sections are ranges in which the emulator
 * counts every warp's memory requests, branches and launches, and writes down every copy,
 * kernel and event in issue order (CUDA_EMU_COUNT, common/emu/src/count.cpp), without the
 * marker: make explain orders those on the engines (grader/tools/timeline.awk). A measured
 * timeline (--timeline) needs a GPU, since the emulator keeps no time. */
#include "harness.h"
#include "profile_trusted.h"
#include "timeline_trusted.h"
#include "worker_trusted.h"
#include "../common/check.h"

#include <cuda_profiler_api.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* Marks where a section's kernels begin in a profiler's report (its grid size is the
 * section's number). */
__global__ void grader_profile_section(int section) { (void)section; }

int profile_run(const char *timeline_path, int emulator_size, const device_info *d)
{
    FILE *tl = NULL;
#if defined(CUDA_EMU)
    if (timeline_path) {
        fprintf(stderr, "profile: a timeline needs a GPU; the CPU emulator keeps no time\n");
        return 1;
    }
#endif
    if (timeline_path && !(tl = fopen(timeline_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", timeline_path);
        return 1;
    }
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    static jmp_buf jb;
    static worker_failure failure;
    workers_set_failure_target(&jb, &failure);
    workers_begin_check(600, NULL);
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
        for (int k = 0; k < 2; k++) { /* warm-up: module loading, first-touch allocations */
            t->prepare(p, impls[k], s);
            t->run(p, impls[k], s);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        for (int k = 0; k < 2; k++) {
            section++;
            printf("section %d\tcheck %d\t%s\t%s\t%s\n", section, i, t->name,
                   k == 0 ? "yours" : "reference", desc);
            fflush(stdout);
            t->prepare(p, impls[k], s);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (tl) {
#if !defined(CUDA_EMU)
                timeline_begin(s);
#endif
            } else {
                CUDA_CHECK(cudaProfilerStart());
#if !defined(CUDA_EMU) /* the emulator's counts need no marker: its range is the section */
                grader_profile_section<<<section, 1, 0, s>>>(section);
#endif
            }
            t->run(p, impls[k], s);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (tl) {
#if !defined(CUDA_EMU)
                timeline_end();
                timeline_write(tl, section);
#endif
            } else {
                CUDA_CHECK(cudaProfilerStop());
            }
        }
        t->destroy(p);
    }
    workers_end_check();
    CUDA_CHECK(cudaStreamDestroy(s));
    if (tl)
        fclose(tl);
    return 0;
}
