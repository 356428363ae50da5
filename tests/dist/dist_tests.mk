# tests/dist/dist_tests.mk - test-dist: the student kit (included by tests/tests.mk).
#
#   test-dist   make dist, then tests/dist/run.sh on the tarball: no solution source inside,
#               every link of what it ships resolves in it (tests/dist/links.py), the prebuilt
#               objects complete, and, unpacked in a temporary folder, the kit
#               grades the untouched skeletons under the emulator from its prebuilt reference
#               (every correctness check OK, speed skipped, exit status 2); what needs the
#               solutions' sources stops with one line (DIST_TEST_LABS: the labs graded;
#               QUICK=1: lab 01's)

.PHONY: test-dist

ifdef STUDENT_KIT
test-dist:
	$(call kit_skip,the student kit's test: it makes a kit from the solutions' sources)
else
# make dist in a make of its own: it compiles with the emulator's tools, which the tests
# before it build (one make at a time writes them). The kit made here is the test's own, in a
# folder of its own, its GPU objects for one architecture (the oldest, which the kit's GPU build
# links for) and its PTX, rather than every one nvcc knows: what is checked is the same (every
# architecture BUILDINFO names is in every object, and the newest's PTX), at an eleventh of
# the compiles. The kit's full fat binary is built by make dist itself only.
# QUICK=1 (make test's quick tier): the kit grades lab 01's skeleton only (DIST_TEST_LABS);
# make test-all: every lab's.
TEST_DIST_DIR   = $(BUILD)/tests/dist-kit
TEST_DIST_ARCHS = $(firstword $(FAT_ARCHS))
test-dist:
	@$(MAKE) -s --no-print-directory dist DIST=$(TEST_DIST_DIR) FAT_ARCHS="$(TEST_DIST_ARCHS)"
	@MAKE="$(MAKE)" $(if $(filter 1,$(QUICK)),DIST_TEST_LABS=$${DIST_TEST_LABS:-01}) tests/dist/run.sh $(TEST_DIST_DIR)/$(DIST_NAME).tar.gz
endif

# Under `make test` and `make test-all` (often with -j) it starts after the emulator tests, as
# test-batch does.
ifneq ($(filter test test-all,$(MAKECMDGOALS)),)
test-dist: | test-emu
endif
