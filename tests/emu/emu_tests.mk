# tests/emu/emu_tests.mk -- the CPU emulator's own tests. Needs no GPU.
#
#   make test-emulator     build and run all of them; fails if any check fails
#   make emu-planted-gpu   build the planted-bug programs with nvcc (for a GPU run:
#                          tests/emu/planted/README.md says how to compare verdicts)
#   make bench-emu         the emulator's CPU time per thread (an empty kernel) and per element
#                          (a grid-stride copy, a block reduction with __syncthreads), this
#                          tree's build against BENCH_BASE's (a commit; tests/emu/bench.sh)
#
# Standalone: make -f tests/emu/emu_tests.mk test-emulator (from the repository root).
#
#   rewrite   CUnit tests of emu-rewrite's source transformation (native)
#   unit      CUnit suites run on the emulator: warp collectives, barriers, shared
#             memory, atomics, spin-waits, streams, events, launch errors ...
#   refusals  a valid feature the emulator cannot run is refused as such, naming its line
#             (tests/emu/refusals.sh); the features it runs build
#   trusted-host  emu-nvcc --emu-trusted-host (the grader's harness): a file that defines no
#             kernel loses the per-access calls, one with a kernel (or a header's) keeps them
#             (tests/emu/trusted-host.sh)
#   figures   a file that asks what a kernel uses (cudaFuncGetAttributes, the occupancy API ...)
#             is compiled with nvcc too and gets ptxas's figures; one that does not is built
#             without nvcc; a failing, hanging or hostile nvcc never fails a build
#             (tests/emu/figures.sh; test_figures.cu in the unit suites)
#   pch       the precompiled prelude: each kind of compile takes its own file and makes the
#             object it makes without it; flags no file matches, and files older than a
#             header, get none (tests/emu/pch.sh)
#   planted   one program per planted bug, built twice (with the bug, and -DFIXED);
#             the emulator must report each bug, naming its block and thread, and
#             stay silent on each fix
#   probes    programs whose counts the emulator must give as an H200 did: the wavefront
#             probe's shared-memory passes, pattern by pattern (tests/emu/probes/)
#   visibility  a program that loads compiled CUDA code from a shared object exports the
#             emulator's API and none of its engine (cuda_emu/testing.h's switch); a shared
#             object that names the engine is refused by name (common/emu/check-internal.sh);
#             only the command loop (shim_serve) sets the schedule; the settings are read
#             before loaded code runs (its setenv of CUDA_EMU_CHECK=0 changes nothing); a
#             kernel marked no_sanitize (compiled without the access hooks) does not compile
#   abi       every enum value, struct size and alignment of the emulator's headers
#             against NVIDIA's, where a CUDA toolkit is installed
#   occupancy the occupancy API against NVIDIA's calculator (cuda_occupancy.h) over a grid of
#             registers, shared memory, block sizes, carveouts and limits, where installed
#             (tests/emu/occupancy/probe.cu)

BUILD ?= build
include $(dir $(lastword $(MAKEFILE_LIST)))../../common/emu/emu.mk

EMU_TEST_DIR := tests/emu
EMU_TEST_BUILD := $(EMU_BUILD)/tests
EMU_CUNIT_LIBS = $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)
# CUnit, installed when missing (apt-get or dnf, as root or through sudo): every test program
# that links it waits for this rule, which make test's own CUnit suites use too. Without the
# wait, a fresh machine's make -j test compiled a CUnit test before the install had ended.
.PHONY: cunit
cunit:
	@tests/install-cunit.sh
EMU_PLANTED := $(basename $(notdir $(wildcard $(EMU_TEST_DIR)/planted/*.cu)))
EMU_UNIT_SRCS := $(wildcard $(EMU_TEST_DIR)/*.cu)
# NVIDIA's nvcc (EMU_NVCC is the emulator's own, from common/emu/emu.mk).
CUDA_NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
# Probes: one program that runs on a GPU and under the emulator alike, whose counts the
# emulator must give as a GPU did (tests/emu/probes/).
EMU_PROBES := $(basename $(notdir $(wildcard $(EMU_TEST_DIR)/probes/*.cu)))
$(EMU_PROBES:%=$(EMU_TEST_BUILD)/probes/%.o): $(EMU_TEST_BUILD)/probes/%.o: $(EMU_TEST_DIR)/probes/%.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,-Icommon)
$(EMU_TEST_BUILD)/probes/check.o: common/check.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,-Icommon)
$(EMU_PROBES:%=$(EMU_TEST_BUILD)/probes/%): %: %.o $(EMU_TEST_BUILD)/probes/check.o $(EMU_LIB)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(filter %.o,$^) -o $@ $(EMU_LDLIBS)

# Visibility: a program that loads compiled CUDA code from a shared object (as the grader's
# worker does) exports the emulator's API and nothing of its engine (tests/emu/visibility/).
EMU_VIS := $(EMU_TEST_BUILD)/visibility
$(EMU_VIS)/host: $(EMU_TEST_DIR)/visibility/host.cpp $(EMU_LIB)
	@mkdir -p $(@D)
	$(Q_LINK)$(EMU_CXX) -g $(EMU_LDFLAGS) $< $(EMU_EXPORT_FLAGS) $(call emu_flags,ldlibs) -ldl -o $@
$(EMU_VIS)/%.o: $(EMU_TEST_DIR)/visibility/%.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,-fPIC)
$(EMU_VIS)/%.so: $(EMU_VIS)/%.o
	$(Q_LINK)$(EMU_CXX) -shared $< -o $@

# For emu-planted-gpu: e.g. -arch=native on the GPU machine (nvcc's default JIT-compiles).
EMU_GPU_ARCH ?=
EMU_CUDA_INCLUDE ?= $(firstword $(wildcard $(dir $(CUDA_NVCC))../include /usr/local/cuda/include))

.PHONY: test-emulator emu-planted-gpu bench-emu
bench-emu:
	@BUILD=$(BUILD) tests/emu/bench.sh $(BENCH_BASE)

# (their header includes CUnit's: they wait for its install too)
$(EMU_UNIT_SRCS:$(EMU_TEST_DIR)/%.cu=$(EMU_TEST_BUILD)/unit/%.o): $(EMU_TEST_BUILD)/unit/%.o: $(EMU_TEST_DIR)/%.cu $(EMU_REWRITE) $(EMU_PCH) | cunit
	$(Q_EMU)$(call emu_compile_cu,$<,$@,-I$(EMU_TEST_DIR) $(EMU_UNIT_FLAGS))
# test_ptds.cu is compiled as nvcc --default-stream per-thread compiles (stream 0 per host thread)
$(EMU_TEST_BUILD)/unit/test_ptds.o: EMU_UNIT_FLAGS = --default-stream per-thread
# The suites check the emulator's own figures of a kernel (registers, static shared memory), which
# nvcc's would replace in a file that asks for them (emu-nvcc), but for test_figures.cu, which
# checks nvcc's (it builds with nvcc too, and EMU_TEST_NVCC says nvcc is there to give them).
$(EMU_TEST_BUILD)/unit/%.o: export EMU_FIGURES := 0
$(EMU_TEST_BUILD)/unit/test_figures.o: export EMU_FIGURES := 1
$(EMU_TEST_BUILD)/unit/test_figures.o: export CUDA_NVCC := $(CUDA_NVCC)
$(EMU_TEST_BUILD)/unit/test_figures.o: EMU_UNIT_FLAGS = $(if $(CUDA_NVCC),-DEMU_TEST_NVCC=1)

$(EMU_TEST_BUILD)/unit/unit_tests: $(EMU_UNIT_SRCS:$(EMU_TEST_DIR)/%.cu=$(EMU_TEST_BUILD)/unit/%.o) $(EMU_LIB) | cunit
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(filter %.o,$^) -o $@ $(EMU_LDLIBS) $(EMU_CUNIT_LIBS)

# The rewriter's tests under AddressSanitizer and UBSan, at -O0 as the rewriter itself is built
# (its 113 asserts run in 30 ms; -O1 took 14 s of a core to compile, -O0 5 s).
$(EMU_TEST_BUILD)/rewrite_tests: $(EMU_TEST_DIR)/test_rewrite.cpp $(EMU_DIR)/rewrite/rewrite.cpp $(EMU_DIR)/rewrite/rewrite.h \
          $(EMU_DIR)/rewrite/figures.cpp $(EMU_DIR)/rewrite/figures.h | cunit
	@mkdir -p $(@D)
	$(Q_LINK)$(EMU_CXX) -std=c++17 -g -O0 $(EMU_SANITIZE) -I$(EMU_DIR)/rewrite $(filter %.cpp,$^) -o $@ $(EMU_CUNIT_LIBS)

# Each planted bug, as written and as fixed (static patterns: the programs have no suffix).
EMU_PLANTED_BUGS := $(EMU_PLANTED:%=$(EMU_TEST_BUILD)/planted/%)
EMU_PLANTED_FIXES := $(EMU_PLANTED:%=$(EMU_TEST_BUILD)/planted/%_fixed)
EMU_PLANTED_BINS := $(EMU_PLANTED_BUGS) $(EMU_PLANTED_FIXES)

$(EMU_PLANTED_BUGS:%=%.o): $(EMU_TEST_BUILD)/planted/%.o: $(EMU_TEST_DIR)/planted/%.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@)
$(EMU_PLANTED_FIXES:%=%.o): $(EMU_TEST_BUILD)/planted/%_fixed.o: $(EMU_TEST_DIR)/planted/%.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,-DFIXED)
$(EMU_PLANTED_BINS): %: %.o $(EMU_LIB)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $< -o $@ $(EMU_LDLIBS)

$(EMU_TEST_BUILD)/planted_tests: $(EMU_TEST_DIR)/test_planted.c | cunit
	@mkdir -p $(@D)
	$(Q_LINK)$(EMU_CC) -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra $< -o $@ $(EMU_CUNIT_LIBS)

# The occupancy against NVIDIA's calculator (the toolkit's cuda_occupancy.h), where installed: the
# probe asks for a kernel's figures but writes its own (EMU_FIGURES=0: no nvcc run).
$(EMU_TEST_BUILD)/occupancy/probe.o: $(EMU_TEST_DIR)/occupancy/probe.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)EMU_FIGURES=0 $(call emu_compile_cu,$<,$@,'-DCUDA_OCCUPANCY_H="$(EMU_CUDA_INCLUDE)/cuda_occupancy.h"')
$(EMU_TEST_BUILD)/occupancy/probe: $(EMU_TEST_BUILD)/occupancy/probe.o $(EMU_LIB)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $< -o $@ $(EMU_LDLIBS)

# The same probe against the emulator's headers and, when installed, NVIDIA's.
$(EMU_TEST_BUILD)/abi_emu: $(EMU_TEST_DIR)/abi_probe.c $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(Q_LINK)$(EMU_CC) -std=c11 $(EMU_CPPFLAGS) $< -o $@
$(EMU_TEST_BUILD)/abi_cuda: $(EMU_TEST_DIR)/abi_probe.c
	@mkdir -p $(@D)
	$(Q_LINK)$(EMU_CC) -std=c11 -Wno-deprecated-declarations -I$(EMU_CUDA_INCLUDE) $< -o $@

# QUICK=1 (make test's quick tier): the engine's visibility, the rewriter, the unit suites, the
# planted bugs and the ABI; the refusals, the trusted host, nvcc's figures, the prelude, the
# probes and the occupancy are left to make test-all (and counted so).
EMU_TESTS_FULL := $(if $(filter 1,$(QUICK)),,1)
test-emulator: $(EMU_TEST_BUILD)/rewrite_tests $(EMU_TEST_BUILD)/unit/unit_tests $(EMU_TEST_BUILD)/planted_tests \
          $(EMU_PLANTED_BINS) $(EMU_TEST_BUILD)/abi_emu \
          $(if $(EMU_CUDA_INCLUDE),$(EMU_TEST_BUILD)/abi_cuda $(if $(EMU_TESTS_FULL),$(EMU_TEST_BUILD)/occupancy/probe)) \
          $(if $(EMU_TESTS_FULL),$(EMU_TEST_BUILD)/probes/wavefront-probe) $(EMU_VIS)/host $(EMU_VIS)/internals.so $(EMU_VIS)/schedule.so $(EMU_VIS)/settings.so \
          $(EMU_PCH)
	@passed=0; failed=0; skipped=0; left=0; full=$(EMU_TESTS_FULL); \
	echo "== emu: the engine is hidden from loaded code (tests/emu/visibility)"; \
	if ! $(EMU_VIS)/host $(EMU_VIS)/internals.so 2>/dev/null && \
	   ! $(EMU_DIR)/check-internal.sh $(EMU_INTERNAL) $(EMU_VIS)/internals.so 2>$(EMU_VIS)/refusal.txt && \
	   grep -q "cuda_emu::set_checks(bool)" $(EMU_VIS)/refusal.txt && \
	   ! grep -q "set_checks" $(EMU_EXPORTS) && grep -q "_ZN8cuda_emu13launch_erased" $(EMU_EXPORTS) && \
	   $(EMU_VIS)/host $(EMU_VIS)/schedule.so && $(EMU_VIS)/host $(EMU_VIS)/settings.so 2>/dev/null && \
	   ! $(call emu_compile_cu,$(EMU_TEST_DIR)/visibility/no_sanitize.cu,$(EMU_VIS)/no_sanitize.o) 2>$(EMU_VIS)/no_sanitize.txt && \
	   grep -q 'poisoned "no_sanitize"' $(EMU_VIS)/no_sanitize.txt; then \
	    echo "   set_checks neither exported nor loadable, refused by name; the schedule is the loop's alone; CUDA_EMU_CHECK=0 set by loaded code ignored; no_sanitize refused"; passed=$$((passed + 1)); \
	else echo "   FAILED: see tests/emu/visibility (an internal symbol reachable, the schedule settable, or the checks turned off by the code)"; failed=$$((failed + 1)); fi; \
	echo "== emu: rewrite"; if $(EMU_TEST_BUILD)/rewrite_tests; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	echo "== emu: unit (emulated CUDA semantics)"; if $(EMU_TEST_BUILD)/unit/unit_tests; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	if [ -n "$$full" ]; then \
	echo "== emu: refusals of valid CUDA the emulator cannot run (tests/emu/refusals.sh)"; \
	if EMU_BUILD=$(EMU_BUILD) $(EMU_TEST_DIR)/refusals.sh; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	echo "== emu: the grader's own host code unchecked, kernels checked (tests/emu/trusted-host.sh)"; \
	if EMU_BUILD=$(EMU_BUILD) $(EMU_TEST_DIR)/trusted-host.sh; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	echo "== emu: nvcc's figures of a file that asks, none for one that does not (tests/emu/figures.sh)"; \
	if EMU_BUILD=$(EMU_BUILD) CUDA_NVCC=$(CUDA_NVCC) $(EMU_TEST_DIR)/figures.sh; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	echo "== emu: the precompiled prelude, taken by each kind of compile, changes no object (tests/emu/pch.sh)"; \
	if EMU_BUILD=$(EMU_BUILD) $(EMU_TEST_DIR)/pch.sh; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	else left=$$((left + 4)); fi; \
	echo "== emu: planted bugs"; if $(EMU_TEST_BUILD)/planted_tests $(EMU_TEST_BUILD)/planted; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	if [ -n "$$full" ]; then \
	echo "== emu: shared-memory wavefronts against an H200's (tests/emu/probes)"; \
	if $(EMU_TEST_DIR)/probes/compare.sh $(EMU_TEST_BUILD)/probes/wavefront-probe $(EMU_TEST_DIR)/probes/wavefronts-h200.tsv "NVIDIA H200"; \
	then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	else left=$$((left + 1)); fi; \
	echo "== emu: ABI against NVIDIA's headers"; \
	if [ -x $(EMU_TEST_BUILD)/abi_cuda ]; then \
	    $(EMU_TEST_BUILD)/abi_emu >$(EMU_TEST_BUILD)/abi_emu.txt; \
	    $(EMU_TEST_BUILD)/abi_cuda >$(EMU_TEST_BUILD)/abi_cuda.txt; \
	    if diff $(EMU_TEST_BUILD)/abi_emu.txt $(EMU_TEST_BUILD)/abi_cuda.txt >$(EMU_TEST_BUILD)/abi.diff; then \
	        echo "   $$(wc -l <$(EMU_TEST_BUILD)/abi_emu.txt) values and layouts agree"; passed=$$((passed + 1)); \
	    else echo "   differences (emulator < > CUDA):"; cat $(EMU_TEST_BUILD)/abi.diff; failed=$$((failed + 1)); fi; \
	else echo "   skipped: no CUDA toolkit headers found (EMU_CUDA_INCLUDE)"; skipped=$$((skipped + 1)); fi; \
	echo "== emu: occupancy against NVIDIA's calculator (cuda_occupancy.h)"; \
	if [ -z "$$full" ]; then left=$$((left + 1)); echo "   left to make test-all"; \
	elif [ -x $(EMU_TEST_BUILD)/occupancy/probe ]; then \
	    if $(EMU_TEST_BUILD)/occupancy/probe >$(EMU_TEST_BUILD)/occupancy/probe.txt; then passed=$$((passed + 1)); else failed=$$((failed + 1)); fi; \
	    sed 's/^/   /' $(EMU_TEST_BUILD)/occupancy/probe.txt; \
	else echo "   skipped: no CUDA toolkit headers found (EMU_CUDA_INCLUDE)"; skipped=$$((skipped + 1)); fi; \
	echo "test-emulator: $$passed passed, $$failed failed, $$skipped skipped$$([ $$left = 0 ] || echo ", $$left left to make test-all (the quick tier)")"; [ $$failed -eq 0 ]

emu-planted-gpu:
	@test -n "$(CUDA_NVCC)" || { echo "emu-planted-gpu: no nvcc found" >&2; exit 2; }
	@mkdir -p $(BUILD)/emu-gpu
	for p in $(EMU_PLANTED); do \
	    $(CUDA_NVCC) -O2 -std=c++17 $(EMU_GPU_ARCH) -o $(BUILD)/emu-gpu/$$p $(EMU_TEST_DIR)/planted/$$p.cu || exit 1; \
	    $(CUDA_NVCC) -O2 -std=c++17 $(EMU_GPU_ARCH) -DFIXED -o $(BUILD)/emu-gpu/$${p}_fixed $(EMU_TEST_DIR)/planted/$$p.cu || exit 1; \
	done
	@echo "Built $(words $(EMU_PLANTED)) planted bugs (and fixes) in $(BUILD)/emu-gpu. Next: on a GPU, bash tests/emu/planted/run_gpu.sh $(BUILD)/emu-gpu"
