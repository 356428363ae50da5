/*
 * unit_main.cu -- runs the CPU emulator's CUnit suites and exits non-zero if
 * any assertion failed. Built with the emulator like every other CUDA source.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "emu_test.h"

bool contains(const std::string &text, const std::string &part)
{
    if (text.find(part) != std::string::npos)
        return true;
    fprintf(stdout, "\n    expected to find: %s\n    in: %s\n", part.c_str(), text.c_str());
    return false;
}

StderrCapture::StderrCapture()
{
    char path[] = "/tmp/emu-test-stderr-XXXXXX";
    file_ = mkstemp(path);
    unlink(path);
    fflush(stderr);
    saved_ = dup(2);
    dup2(file_, 2);
}

StderrCapture::~StderrCapture()
{
    stop();
    close(file_);
}

std::string StderrCapture::stop()
{
    if (saved_ < 0)
        return "";
    fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    std::string text;
    char buf[4096];
    lseek(file_, 0, SEEK_SET);
    for (ssize_t n; (n = read(file_, buf, sizeof buf)) > 0;)
        text.append(buf, (size_t)n);
    return text;
}

void add_suite(const char *name, CU_TestInfo *tests)
{
    CU_pSuite s = CU_add_suite(name, nullptr, nullptr);
    for (CU_TestInfo *t = tests; t->pName != nullptr; ++t)
        CU_add_test(s, t->pName, t->pTestFunc);
}

int main()
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    add_warp_suite();
    add_block_suite();
    add_memory_suite();
    add_sync_suite();
    add_launch_suite();
    add_ipc_suite();
    add_compat_suite();
    add_cudac_suite();
    add_count_suite();
    add_modern_suite();
    add_ptds_suite();
    add_figures_suite();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
