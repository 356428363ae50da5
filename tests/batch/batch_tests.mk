# tests/batch/batch_tests.mk - tests of batch grading (included by tests/tests.mk).
#
#   test-batch-unit   CUnit: the JSON reader, gradebook CSV and rows, config validation, the
#                     batch's schedule (one grade per GPU at a time, prepares beside it)
#   test-batch        the unit tests, the workbook's own skeletons whatever labs/ holds
#                     (tests/batch/pristine.sh), then tests/batch/test_batch.py under the CPU emulator,
#                     lab 01: hostile folder names, symlinks refused, a student forging the
#                     grader's lines (shown as escapes everywhere), CSV/JSONL/JUnit/Gradescope
#                     read back, work not submitted named per lab in every export, no batch
#                     folder in what a student gets, two batches on one output, kill -9 and resume (byte-identical
#                     gradebook), the HTML report in headless Chromium, a Slurm job array; and
#                     GPUS=0,1 with a stand-in grade.sh: one timer per GPU, each with its own
#                     CUDA_VISIBLE_DEVICES, never two grades on one GPU at once (QUICK=1, make
#                     test's quick tier: the HTML report, the unisolated batch and the
#                     Gradescope kit left to make test-all); then tests/batch/fault_exports.sh, both
#                     tiers: a seeded overrun (lab 01) and race (lab 06) graded, their fault's
#                     file:line, kernel, block and thread in results.json, Gradescope's results, the
#                     JUnit XML, the Markdown and the HTML page, escaped, and read from the fault
#                     object (taken out, no export shows it)

.PHONY: test-batch test-batch-unit

$(TESTS)/batch_unit_tests: tests/batch/test_batch_unit.c $(EXPORTS_OBJS) \
                           $(BUILD)/host/grader/batch/schedule.o \
                           $(BUILD)/host/common/json_read.o $(BUILD)/host/labs_registry.o \
                           $(HOST_OBJS) $(TABLE_OBJS) | cunit
	@mkdir -p $(@D)
	$(Q_LINK)$(CC) $(CFLAGS) $(filter %.c %.o,$^) $(CUNIT_LIBS) -lm -o $@

test-batch-unit: $(TESTS)/batch_unit_tests
	$(TESTS)/batch_unit_tests

# The emulated build of lab 01 first (one make at a time writes the shared objects).
ifdef STUDENT_KIT
test-batch: test-batch-unit
	$(call kit_skip,batch grading: its test grades lab 01's reference solution as a student)
else
test-batch: test-batch-unit $(BATCH)
	@bash tests/batch/pristine.sh
	@$(MAKE) -s --no-print-directory batch-prebuild EMU=1 BATCH_LABS=coalescing
	@python3 tests/batch/test_batch.py $(BUILD)
	@bash tests/batch/fault_exports.sh $(BUILD)
endif

# Under `make test` and `make test-all` (often with -j) the batch tests start after the
# emulator tests: both build the emulator's shared objects, and one make at a time may write them.
ifneq ($(filter test test-all,$(MAKECMDGOALS)),)
test-batch: | test-emu
endif
