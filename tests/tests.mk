# tests/tests.mk - `make test`: the whole test suite. Needs no GPU.
#
#   test-unit     CUnit suites of common/ and grader/, the driver against real child processes
#   test-vet      student objects the build must reject (interposition, the reference, dlopen,
#                 forbidden libraries), each rejected with a message naming the symbol
#   test-build    every lab runner compiles with nvcc, for the skeletons and the solutions
#   test-emu      every lab's solution and skeleton graded under the CPU emulator, and the
#                 emulator's own tests (once common/emu exists)

CUNIT_LIBS := $(shell pkg-config --libs cunit 2>/dev/null || { test -f /usr/include/CUnit/CUnit.h && echo -lcunit; })
TESTS := $(BUILD)/tests

.PHONY: test test-unit test-vet test-build cunit

cunit:
ifeq ($(CUNIT_LIBS),)
	@echo "error: CUnit is not installed. Install it with: sudo apt-get install libcunit1-dev" >&2
	@exit 2
endif

$(TESTS)/fake_runner: tests/fake_runner.c $(BUILD)/host/grader/results.o $(BUILD)/host/common/util.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $^ -o $@

$(TESTS)/unit_tests: tests/unit_main.c tests/test_common.c tests/test_grader.c tests/test_driver.c \
                     $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(TABLE_OBJS) tests/suites.h | cunit
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) $(CUNIT_LIBS) -lm -o $@

test-unit: $(TESTS)/unit_tests $(TESTS)/fake_runner
	$(TESTS)/unit_tests $(TESTS)/fake_runner

test-vet: $(GPU)/harness.syms | toolkit
	@NVCC="$(NVCC)" BUILD=$(BUILD) bash tests/vet/run.sh $(GPU)/harness.syms

test-build: | toolkit
	$(MAKE) --no-print-directory runners STUDENT=labs
	$(MAKE) --no-print-directory runners STUDENT=solutions

test: test-unit test-vet test-build
	@echo "make test: all suites passed."
