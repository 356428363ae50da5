/*
 * test_planted.c -- the planted-bug programs of tests/emu/planted, run on the
 * CPU emulator: each must be reported with the kind of error, the kernel, and
 * the block and thread (or the bytes) at fault, and each fixed version (built
 * with -DFIXED) must run clean and correct.
 *
 *   planted_tests DIR    DIR holds NAME and NAME_fixed for every case below
 *
 * The expected lines are POSIX extended regular expressions over the
 * program's combined stdout and stderr. They name the block the emulator
 * finds first when it runs blocks in order, on one host thread
 * (CUDA_EMU_WORKERS=1); with several workers another block may be first, so
 * a second run with two workers checks only the verdict (KIND).
 */
#include <CUnit/Basic.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_EXPECT 5

typedef struct {
    const char *name;                 /* program in tests/emu/planted, without .cu */
    const char *expect[MAX_EXPECT];   /* every one must match the bug's output */
    const char *kind;                 /* the verdict, whichever block is reported */
} planted_case;

static const planted_case cases[] = {
    {"missing_sync",
     {"cuda-emu: warning: read of shared memory that no thread of the block has written yet "
      "\\(missing __syncthreads\\(\\)\\?\\) in kernel rotate, block \\(0,0,0\\), thread \\(0,0,0\\)",
      "cuda-emu: error: data race on shared memory in kernel rotate, block \\(0,0,0\\), "
      "thread \\(1,0,0\\)",
      "thread \\(0,0,0\\) of the same block read it at tests/emu/planted/missing_sync\\.cu:27",
      "not all in warp 0, so a __syncwarp\\(\\) .* cannot fix it; put a __syncthreads\\(\\) "
      "between the writes and the reads",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: data race on shared memory in kernel rotate, block"},
    {"oob_tail",
     {"ERROR: AddressSanitizer: heap-buffer-overflow",
      "WRITE of size 4",
      "#0 .* in ramp\\(float\\*, float, int\\) tests/emu/planted/oob_tail\\.cu:24",
      "cuda-emu: the address is 0 bytes past the end of a 4000-byte cudaMalloc allocation",
      "cuda-emu: error: the report above is from kernel ramp, block \\(3,0,0\\), "
      "thread \\(232,0,0\\)"},
     "ERROR: AddressSanitizer: heap-buffer-overflow"},
    {"half_barrier",
     {"cuda-emu: error: __syncthreads\\(\\) not reached by every thread of the block in kernel "
      "block_sum, block \\(0,0,0\\)",
      "64 threads wait at __syncthreads\\(\\) at tests/emu/planted/half_barrier\\.cu:33: "
      "\\(0,0,0\\)\\.\\.\\(63,0,0\\)",
      "64 threads exited without reaching it: \\(64,0,0\\)\\.\\.\\(127,0,0\\)",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: __syncthreads\\(\\) not reached by every thread of the block in kernel block_sum"},
    {"shfl_width",
     {"cuda-emu: error: a shuffle with an invalid width in kernel block_sum, block \\(0,0,0\\), "
      "thread \\(0,0,0\\)",
      "__shfl_down_sync at tests/emu/planted/shfl_width\\.cu:34 has width 64",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: a shuffle with an invalid width in kernel block_sum"},
    {"global_race",
     {"cuda-emu: error: data race on device memory in kernel count_positive, block \\(0,0,0\\), "
      "thread \\(1,0,0\\)",
      "thread \\(1,0,0\\) reads 4 bytes at byte offset 0 of a 4-byte cudaMalloc allocation "
      "\\(made at tests/emu/planted/global_race\\.cu:39\\) at tests/emu/planted/global_race\\.cu:23",
      "thread \\(0,0,0\\) of the same block wrote it at tests/emu/planted/global_race\\.cu:23",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: data race on device memory in kernel count_positive"},
    {"uninit_output",
     {"cuda-emu: warning: read of uninitialized device memory in kernel add_into, block \\(0,0,0\\), "
      "thread \\(0,0,0\\)",
      "reads 4 bytes at byte offset 0 of a 4000-byte cudaMalloc allocation \\(made at "
      "tests/emu/planted/uninit_output\\.cu:32\\) at tests/emu/planted/uninit_output\\.cu:21",
      "cuda-emu: warning: cudaMemcpy copies results computed by threads that read uninitialized memory",
      "the first such read: kernel add_into, block \\(0,0,0\\), thread \\(0,0,0\\), at "
      "tests/emu/planted/uninit_output\\.cu:21",
      "RESULT: wrong: 1000 of 1000"},
     "RESULT: wrong: 1000 of 1000"},
    {"uninit_tail",
     {"cuda-emu: warning: cudaMemcpy copies device memory that was never written",
      "928 of the 4000 bytes copied were never written \\(the first is 1 byte at byte offset "
      "3072 of a 4000-byte cudaMalloc allocation \\(made at tests/emu/planted/uninit_tail\\.cu:33\\)",
      "at tests/emu/planted/uninit_tail\\.cu:42",
      "RESULT: wrong: 232 of 1000"},
     "RESULT: wrong: 232 of 1000"},
    {"host_deref",
     {"cuda-emu: error: host code reads device memory",
      "4 bytes at byte offset 0 of a 4-byte cudaMalloc allocation \\(made at "
      "tests/emu/planted/host_deref\\.cu:35\\) at tests/emu/planted/host_deref\\.cu:43",
      "#2 .* in main tests/emu/planted/host_deref\\.cu:43"},
     "cuda-emu: error: host code reads device memory"},
    {"host_array",
     {"cuda-emu: error: a kernel reads memory that is not device memory in kernel scale, "
      "block \\(0,0,0\\), thread \\(0,0,0\\)",
      "thread \\(0,0,0\\) reads 4 bytes at address 0x[0-9a-f]+, 0 bytes into a 4000-byte block of "
      "host memory \\(malloc, new or a std::vector\\) allocated at tests/emu/planted/host_array\\.cu:29, "
      "at tests/emu/planted/host_array\\.cu:23",
      "CUDA error: cudaErrorIllegalAddress"},
     "cuda-emu: error: a kernel reads memory that is not device memory in kernel scale"},
    {"warp_sync_reduce",
     {"cuda-emu: error: data race on shared memory in kernel reduce6<block>, block \\(0,0,0\\), "
      "thread \\(1,0,0\\)",
      "thread \\(1,0,0\\) writes __shared__ sdata, element 1 .* at "
      "tests/emu/planted/warp_sync_reduce\\.cu:34",
      "thread \\(0,0,0\\) of the same block read it at tests/emu/planted/warp_sync_reduce\\.cu:39",
      "both threads are in warp 0, and no thread of another warp races on this memory before "
      "the next __syncthreads\\(\\): .* put a __syncwarp\\(\\) between the steps",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: data race on shared memory in kernel reduce6<block>"},
    {"last_writer",
     {"cuda-emu: error: data race on shared memory: two writes of different values in kernel "
      "warp_sums, block \\(0,0,0\\), thread \\(32,0,0\\)",
      "thread \\(32,0,0\\) writes __shared__ last, element 0 .* at "
      "tests/emu/planted/last_writer\\.cu:34",
      "thread \\(0,0,0\\) \\(warp 0\\) of the same block wrote another value there at "
      "tests/emu/planted/last_writer\\.cu:34, .* depends on which warp runs last",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: data race on shared memory: two writes of different values in kernel warp_sums"},
    {"cp_async_early",
     {"cuda-emu: error: data race on shared memory in kernel rotate, block \\(0,0,0\\), "
      "thread \\(1,0,0\\)",
      "thread \\(1,0,0\\)'s asynchronous copy \\(cp\\.async\\) issued at "
      "tests/emu/planted/cp_async_early\\.cu:31 writes __shared__ s, element 1",
      "thread \\(0,0,0\\) of the same block read it at tests/emu/planted/cp_async_early\\.cu:41, "
      "and nothing orders the two",
      "CUDA error: cudaErrorLaunchFailure"},
     "cuda-emu: error: data race on shared memory in kernel rotate"},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static const char *bin_dir;

/* Runs PROGRAM with stderr folded into stdout; returns its output (malloc'd)
 * and sets *STATUS to its exit status, or 128 + the signal that ended it. */
static char *run(const char *program, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s 2>&1", program);
    FILE *p = popen(cmd, "r");
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    if (!p || !out) {
        *status = -1;
        free(out);
        return NULL;
    }
    for (size_t n; (n = fread(out + len, 1, cap - len - 1, p)) > 0;) {
        len += n;
        if (cap - len < 1024)
            out = realloc(out, cap *= 2);
    }
    out[len] = '\0';
    int w = pclose(p);
    *status = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
    return out;
}

static int matches(const char *text, const char *pattern)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
        printf("\n    bad pattern: %s\n", pattern);
        return 0;
    }
    int ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* The bug is reported as expected, and the run fails; the fix runs clean. */
static void check_case(const planted_case *c)
{
    char path[512];
    int status = 0;
    snprintf(path, sizeof path, "CUDA_EMU_WORKERS=1 %s/%s", bin_dir, c->name);
    char *out = run(path, &status);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_NOT_EQUAL(status, 0);
    CU_ASSERT_PTR_NULL(strstr(out, "RESULT: correct"));
    for (int i = 0; i < MAX_EXPECT && c->expect[i]; ++i) {
        int ok = matches(out, c->expect[i]);
        if (!ok)
            printf("\n    %s: no line matches /%s/\n    output was:\n%s\n", c->name, c->expect[i], out);
        CU_ASSERT(ok);
    }
    free(out);

    /* Blocks on two host threads: the same verdict, whichever block is first. */
    snprintf(path, sizeof path, "CUDA_EMU_WORKERS=2 %s/%s", bin_dir, c->name);
    out = run(path, &status);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_NOT_EQUAL(status, 0);
    CU_ASSERT_PTR_NULL(strstr(out, "RESULT: correct"));
    if (!matches(out, c->kind))
        printf("\n    %s with two workers: no line matches /%s/\n    output was:\n%s\n", c->name,
               c->kind, out);
    CU_ASSERT(matches(out, c->kind));
    free(out);

    snprintf(path, sizeof path, "CUDA_EMU_WORKERS=2 %s/%s_fixed", bin_dir, c->name);
    out = run(path, &status);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    int clean = status == 0 && strstr(out, "RESULT: correct") && !strstr(out, "cuda-emu: error") &&
                !strstr(out, "Sanitizer") && !strstr(out, "runtime error");
    if (!clean)
        printf("\n    %s_fixed should run clean (exit %d):\n%s\n", c->name, status, out);
    CU_ASSERT(clean);
    free(out);
}

#define CASE_TEST(i) static void test_case_##i(void) { check_case(&cases[i]); }
CASE_TEST(0)
CASE_TEST(1)
CASE_TEST(2)
CASE_TEST(3)
CASE_TEST(4)
CASE_TEST(5)
CASE_TEST(6)
CASE_TEST(7)
CASE_TEST(8)
CASE_TEST(9)
CASE_TEST(10)
CASE_TEST(11)
static void (*const case_tests[])(void) = {test_case_0, test_case_1, test_case_2, test_case_3,
                                           test_case_4, test_case_5, test_case_6, test_case_7,
                                           test_case_8, test_case_9, test_case_10,
                                           test_case_11};
_Static_assert(sizeof case_tests / sizeof case_tests[0] == N_CASES, "one test per case");

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: planted_tests DIR (the built planted programs)\n");
        return 2;
    }
    bin_dir = argv[1];
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("planted bugs", NULL, NULL);
    for (size_t i = 0; i < N_CASES; ++i)
        CU_add_test(s, cases[i].name, case_tests[i]);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
