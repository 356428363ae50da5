/*
 * emu_test.h -- helpers shared by the CPU emulator's CUnit suites.
 *
 * The suites are CUDA sources: they are built through emu-rewrite and run on
 * the emulator, so every assertion checks the emulator against what CUDA
 * documents. Tests that provoke an emulator error capture stderr to check
 * its wording, then clear the sticky error with cudaDeviceReset().
 */
#ifndef EMU_TEST_H
#define EMU_TEST_H

#include <CUnit/CUnit.h>
#include <cuda_profiler_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

/* A CUDA call that must succeed; stops the test if it does not. */
#define EXPECT_OK(call) CU_ASSERT_EQUAL_FATAL((call), cudaSuccess)

/* Whether TEXT contains PART; on a miss, prints TEXT so the failure says why. */
bool contains(const std::string &text, const std::string &part);

/* Redirects stderr to a temporary file until stop(), which returns what was
 * written (and echoes nothing: the suite's output stays readable). */
class StderrCapture {
  public:
    StderrCapture();
    ~StderrCapture();
    std::string stop();

  private:
    int saved_; /* the real stderr, while capturing; -1 once stopped */
    int file_;  /* the temporary file */
};

/* Runs LAUNCH between cudaProfilerStart and Stop with CUDA_EMU_COUNT set, and returns the
 * lines counted (count.cpp's format, README.md's Counting). */
template <class F>
std::vector<std::string> counted_rows(F launch)
{
    char path[] = "/tmp/emu-count-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    setenv("CUDA_EMU_COUNT", path, 1);
    cudaProfilerStart();
    launch();
    cudaDeviceSynchronize();
    cudaProfilerStop();
    unsetenv("CUDA_EMU_COUNT");
    std::vector<std::string> rows;
    FILE *f = fopen(path, "r");
    if (f == nullptr)
        return rows;
    char line[1024];
    while (fgets(line, sizeof line, f))
        rows.push_back(line);
    fclose(f);
    unlink(path);
    return rows;
}

/* Each suite file registers its tests; unit_main.cu runs them all. */
void add_warp_suite();
void add_block_suite();
void add_memory_suite();
void add_sync_suite();
void add_launch_suite();
void add_ipc_suite();
void add_compat_suite();
void add_cudac_suite();
void add_count_suite();
void add_modern_suite();
void add_ptds_suite();
void add_figures_suite();

/* Adds a suite named NAME with TESTS (a null-terminated CU_TestInfo array). */
void add_suite(const char *name, CU_TestInfo *tests);

#endif /* EMU_TEST_H */
