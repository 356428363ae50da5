# tests/dist/dist_tests.mk - test-dist: the student kit (included by tests/tests.mk).
#
#   test-dist   make dist, then tests/dist/run.sh on the tarball: no solution source inside,
#               every link of what it ships resolves in it (tests/dist/links.py), the prebuilt
#               objects complete, and, unpacked in a temporary folder, the kit
#               grades the untouched skeletons under the emulator from its prebuilt reference
#               (every correctness check OK, speed skipped, exit status 2); what needs the
#               solutions' sources stops with one line (DIST_TEST_LABS: the labs graded)

.PHONY: test-dist

ifdef STUDENT_KIT
test-dist:
	$(call kit_skip,the student kit's test: it makes a kit from the solutions' sources)
else
# make dist in a make of its own: it compiles with the emulator's tools, which the tests
# before it build (one make at a time writes them).
test-dist:
	@$(MAKE) -s --no-print-directory dist
	@MAKE="$(MAKE)" tests/dist/run.sh $(DIST_TGZ)
endif

# Under `make test` (often with -j) it starts after the emulator tests, as test-batch does.
ifneq ($(filter test,$(MAKECMDGOALS)),)
test-dist: | test-emu
endif
