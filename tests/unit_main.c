/* unit_main.c - runs every CUnit suite; exit status 1 if any assertion failed.
 *   unit_tests FAKE_CHECK_PATH */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "suites.h"

const char *fake_check_path;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: unit_tests PATH_OF_FAKE_CHECK\n");
        return 2;
    }
    fake_check_path = argv[1];
    CU_SuiteInfo suites[] = {common_suite, grader_suite, driver_suite, score_suite, profiles_suite,
                             CU_SUITE_INFO_NULL};
    if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
