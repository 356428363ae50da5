/* suites.h - the CUnit suites linked into tests/unit_tests. */
#ifndef TESTS_SUITES_H
#define TESTS_SUITES_H
#include <CUnit/CUnit.h>
extern CU_SuiteInfo common_suite;
extern CU_SuiteInfo grader_suite;
extern CU_SuiteInfo driver_suite;
extern CU_SuiteInfo score_suite;
extern CU_SuiteInfo profiles_suite;
/* Path of the fake check the driver tests start (tests/fake_check.c; set by main from argv). */
extern const char *fake_check_path;
#endif
