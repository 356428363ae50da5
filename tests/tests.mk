# tests/tests.mk - the workbook's own tests, in two tiers. Needs no GPU.
#
#   make test      the quick tier: every suite below that protects the grader's rooms and the
#                  labs, each its quick slice (QUICK=1), then test-tiers, which holds the tier to
#                  its promise (every grader/*/ room and every lab of the manifest touched);
#                  about five minutes on two quiet cores (tests/RESULTS.md)
#   make test-all  the full tier: every case of every suite (QUICK empty), as CI runs it
#                  (.ci/run); test-tiers does not run there (it reads the quick tier's output)
#   make test-NAME one suite, every case; `make test-NAME QUICK=1` its quick slice
#
# Each suite has one set of cases; QUICK=1 picks its slice (a list kept beside the cases, or the
# runner's own sections marked full-tier only), never a second copy of a test. The suites:
#
#   test-unit     CUnit suites of common/ and grader/ (scoring, the speed checks' stopping rule,
#                 LAB= lists, lab manifests, check
#                 names that state the size run under the emulator...),
#                 the driver against real child processes (tests/fake_check.c)
#   test-docs     every path README.md, the grader's READMEs, the headers and the lessons name
#                 exists, make help names every verb, and what the lessons state that a table
#                 holds matches it: pass marks, the first rung to pass, GPU facts, links (and the
#                 headings they name) in the workbook and the student kit, the folded questions,
#                 the terms, and every lab folder named wherever the workbook lists its labs;
#                 every figure of a lesson, slide, notebook cell or lab comment held, within
#                 its own rounding, to the one source tests/docs/figure-sources.tsv names for it
#                 (a cell of a recorded results file or bench table, a derivation from them, or
#                 a cited value with why: tests/docs/figures.py), and a drift planted in each
#                 kind of place caught (tests/docs/figures_selftest.py);
#                 the lessons' marked code snippets compile with nvcc -c, no GPU needed
#                 (tests/docs/snippets.py; skipped without nvcc); no function of grader/ over
#                 80 lines without its reason in its comment (tests/docs/functions.py);
#                 the grader's rooms include down their floors (grader/rooms.tsv), never up and
#                 never in a circle, a planted back-arrow and circle caught (tests/docs/rooms.py);
#                 no grader header shares a mutable global (extern of a non-const object) but
#                 the exceptions it lists with their reasons, planted ones caught
#                 (tests/docs/globals.py);
#                 README.md's commands are verbs of make help, the scripts it names are there,
#                 its links resolve, it links tests/RESULTS.md once and stays a first read
#                 (tests/docs/)
#   test-docs-mutation  every one of those figures shifted by -7%, -5%, +5% and +7%, each shift
#                 caught by tests/docs/figures.py (tests/docs/figures_mutation.py; about a
#                 minute: for the full tier)
#   test-bench-tools  the bench chart and table writers on a sample (tests/bench/run.sh)
#   test-doctor   make doctor exits 0 where make grade works (no GPU: the emulator's g++ and
#                 sanitizer libraries), 2 where it cannot, and names a GPU; make grade with a
#                 STUDENT= that is not there: one error line (tests/doctor/run.sh)
#   test-rungs    every ladder rung graded as a student's file under the CPU emulator, the
#                 headers of its solution's folder beside it (tests/emu/rungs.sh)
#   test-vet      student objects the build must admit (names of their own like a library's,
#                 the SGEMM solution under the PTX rule; every other skeleton and solution is
#                 vetted by test-build's and emu-runners' builds) and reject (the reference,
#                 dlopen, the emulator's internals, forbidden libraries by their use), with a
#                 message naming the symbol
#   test-build    every lab's harness and workers compile with nvcc, for the skeletons and the
#                 solutions; the student's build carries -lineinfo, which changes no machine code
#                 (tests/build/lineinfo.sh); a build folder partly deleted is built again, never
#                 graded without its build (tests/build/partial.sh); every lab's problem.so finds
#                 what it calls of the one harness's among what it exports
#                 (tests/build/problem_exports.sh)
#   test-emu      every lab's solution graded under the CPU emulator (every correctness
#                 check OK, speed skipped; the skeletons are graded so by test-dist, in the
#                 student kit, or here in a kit: emu-grade-labs), the emulator's own tests
#                 (test-emulator, tests/emu/emu_tests.mk), and the speed checks' device-side
#                 fills, hashes and comparisons against the host on both of their paths
#                 (test-devcheck, tests/devcheck); a student's file deleted after a build is
#                 graded as missing, never by that build's object, and one missing (or a link
#                 to nothing) in a tree never built is graded in the grader's words, not make's
#                 (tests/emu/file_gone.sh); a student's helper files (tests/emu/helpers.sh): a
#                 fix at any depth built again (a helper changed, removed or made), no header of
#                 theirs read where the toolkit's, the workbook's or the system's are looked up
#                 (one file or a tree), no link of any kind followed, '..' only inside the lab's
#                 folder; the tests' cache of student objects gives a file only a
#                 byte-identical compile's object (and its record of helper files), and no
#                 compile sees it
#                 (tests/emu/student_cache.sh); the memory the harness shares with its workers,
#                 counted (tests/emu/regions.sh): a check's buffers unmapped in one message, lab
#                 05's host arrays in one region, and with GRADER_EMU_REGIONS=1 (a GPU's way)
#                 one region a lab, each mapped once, every correctness check OK both ways;
#                 one harness serves every lab of a run, and one stopped mid-lab by a check's
#                 time limit is replaced by a fresh one, the next lab's verdicts unchanged;
#                 one reference's worker serves every lab, a dead one replaced
#                 (tests/emu/onehar.sh)
#   test-explain  make explain on the skeletons: more sectors or wavefronts per request than
#                 the reference at the line each lesson names (01, 02, 06), divergent branches
#                 and few lanes in where the reference has none (03, 07), a last wave nearly
#                 empty where the reference's is full (08, on 4 SMs and on an H200's 132), an SVG
#                 of the worst request (01, 02, 06), fewer bytes in flight (04), one engine at
#                 a time where the reference's copies and kernels overlap (05; the engines'
#                 schedule also on op lists written by hand); a hostile file's names and lines
#                 are data (no file a count names opened or quoted, escapes, well-formed SVG),
#                 forged count rows left out, counts only in the sandbox, and bench, profile
#                 and sanitize refuse a tree not yours; PREDICT=1 asks the lab's question before
#                 the counts (waiting only on a terminal), the reference's rows say ref:; every
#                 lab's explain.tsv says what
#                 it does not show (tests/explain/run.sh; the counters themselves are proven on
#                 known kernels in test-emulator's count suite)
#   test-estimate the no-GPU speed estimate held to its agreement table with the H200
#                 (tests/gpu/results/estimate-vs-h200.txt): every row from the committed counts,
#                 lab 06's skeleton counted again, make grade's ESTIMATE line and its "none"
#                 lines (a lab that gives none, two sizes that differ, a call that moved too
#                 little, other code for the emulator: tests/estimate/run.sh)
#   test-cheats   cheating submissions and honest controls (tests/cheats), sandboxed
#   test-sandbox  the sandbox where namespaces are refused (as in Gradescope's containers):
#                 Landlock and another uid, and the attacks again; no worker's scratch folder
#                 left in TMPDIR after a grade, a grade stopped (in a check, or in the WHERE
#                 count that runs beside the checks) or a fault's rerun on the
#                 emulator (which names the line there too); grading in one process (as
#                 on WSL2) and as an ordinary user; make doctor where profiler counters are
#                 reserved for administrators (tests/sandbox)
#   test-batch    batch grading, its exports, resume, Slurm (tests/batch/batch_tests.mk)
#   test-stop     make grade, grader/driver/grade.sh and make grade-batch stopped (Ctrl-C, SIGTERM,
#                 SIGHUP, timeout) while a student's file compiles and while it runs: within
#                 2 s no process of the run is left, no lock held, no result half-written,
#                 and the next run grades (tests/stop/test_stop.py)
#   test-serve    the course server (grader/serve/) on loopback, no GPU: tokens (401 and no
#                 detail), hostile uploads (links, "..", absolute paths, devices, garbage, tar
#                 bombs, over 6 MiB), the rate limit and queue cap, make submit and
#                 submit-status, SLURM= (a stand-in srun); full tier, graded by make grade on
#                 the emulator: 100 students at once (a right, a wrong and a faulting file; each
#                 graded once, each report make grade's for its owner's file, to its owner only),
#                 SIGKILL three times in 50 submissions (none lost, each graded once), SIGKILL
#                 during make grade (nothing of it left running), make submit's
#                 report against make grade's (the emulator), the status page in headless
#                 Chromium, DEADLINE= and make serve-export, HTTPS from TLS_CERT= and TLS_KEY=
#                 (tests/serve/serve_test.py)
#   test-dist     make dist: the student kit holds no solution source, and grades the untouched
#                 skeletons under the emulator from its prebuilt reference (tests/dist/)
#   test-new-lab  a tenth lab is three folders: make new-lab NAME=toy in a copy of the workbook,
#                 and the toy lab built and graded there under the emulator (its reference and its
#                 skeleton pass every correctness check); what lists the labs for people is
#                 derived from the three folders alone (make docs-gen) (tests/newlab/run.sh)
#   test-notebook labs/workbook.ipynb executed headless under the emulator: cloned into an empty
#                 folder, and opened in place with lab 01 graded (NOTEBOOK_LABS=all grades every
#                 lab, as test-emu does); installs nbclient and ipykernel into a venv in
#                 the user's cache once a machine (tests/notebook/venv.sh)
#
#   test-tiers    (make test only, last) the quick tier touched every room of the grader and
#                 every lab of the manifest (tests/tiers/check.sh, tests/tiers/rooms.tsv)
#
# The quick tier, suite by suite (QUICK=1; make test-all runs all of each):
#   skeletons, unit, bench-tools, doctor   all of it
#   emu           every lab's solution graded (every correctness check), the skeletons of labs 01
#                 and 06 with their WHERE and ESTIMATE lines, the devcheck and file-gone tests,
#                 and of the emulator's own: visibility, rewrite, unit, planted bugs, ABI
#   cheats        the cases tests/cheats/quick.txt names: one or more a defence (the build,
#                 the sandbox, vetting, forged output, stop) and three honest controls
#   sandbox       the probe, the WHERE count, TMPDIR, one process and no sandbox, and four
#                 attacks under Landlock (not the other user, /usr/local/src, counters)
#   stop          three stops (a build, two gradings; one per command) and one run to the end
#   batch         input errors, the GPU schedule, hostile names, kill -9 and resume, Slurm
#   serve         tokens, hostile uploads, the limits, make submit through a stand-in grader,
#                 SLURM= through a stand-in srun
#   vet           six rows: admitted and rejected, GPU and emulator, a PTX rule
#   explain       lab 01's requests and picture, the hostile file, the refusals, the tables
#   dist          the kit (one architecture and its PTX, as in make test-all) grading lab 01
#   build         the common and grader sources and lab 01 for one architecture (nvcc), its
#                 -lineinfo check, the partial build
#   docs          all but the checkers' self-tests
#   notebook, new-lab, rungs, estimate   make test-all only
# A byte-identical student file compiles once in a run: both tiers share a cache of vetted
# objects (STUDENT_CACHE, below; grader/make/student_cache.py), but where the compile itself is
# under test (test-sandbox, test-stop).
#
# In a student kit (make dist: no solution sources) the tests that grade the solutions, or
# build a kit, say that they are skipped and why; the others run as in the full workbook.

# test-toolkits (in neither tier; .ci/run runs it after make test-all): the grader and every lab's
# reference and skeleton compile and link with CUDA 12.4 and 11.8 too (tests/toolkits/run.sh,
# which installs them into .toolkits/). TOOLKITS="12.4" tests one.
.PHONY: test-toolkits
test-toolkits:
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/toolkits/run.sh $(TOOLKITS)

# Recursive (=): looked up when a test links, after the `cunit` rule may have installed it.
CUNIT_LIBS = $(shell pkg-config --libs cunit 2>/dev/null || { test -f /usr/include/CUnit/CUnit.h && echo -lcunit; })
TESTS := $(BUILD)/tests

.PHONY: test test-serve test-new-lab test-notebook test-skeletons test-unit test-docs test-docs-mutation test-bench-tools test-doctor test-vet test-build test-emu test-explain test-estimate test-cheats test-sandbox test-stop emu-runners emu-grade-solutions emu-grade-labs emu-file-gone emu-helpers emu-student-cache emu-regions emu-onehar test-rungs test-devcheck cunit

# The tier, set first (the suites' rules below read it): QUICK=1 under `make test` (each
# suite's quick slice), empty under `make test-all` (every case), as given otherwise (make
# test-cheats QUICK=1). Exported: the runners read it.
ifneq ($(filter test,$(MAKECMDGOALS)),)
QUICK := 1
endif
ifneq ($(filter test-all,$(MAKECMDGOALS)),)
QUICK :=
endif
export QUICK

# A byte-identical student file compiles once in a run: the tests' builds share a cache of
# vetted objects (grader/make/student_cache.sh: keyed by every input's content and the flags;
# hidden from every sandbox), unless STUDENT_CACHE is set (empty: none) by the caller.
ifneq ($(filter test test-all test-%,$(MAKECMDGOALS)),)
STUDENT_CACHE ?= $(abspath $(BUILD))/student-cache
export STUDENT_CACHE
# (made now: a sandbox hides it only where it is there)
$(if $(STUDENT_CACHE),$(shell mkdir -p $(STUDENT_CACHE)))
endif

-include tests/emu/emu_tests.mk
-include tests/batch/batch_tests.mk
-include tests/dist/dist_tests.mk

# $(call kit_skip,what): a recipe line that says, in a student kit, that `what` is skipped.
kit_skip = @echo "skipped: $(1) ($(KIT_SAYS))"

# CUnit is installed when missing by the `cunit` rule (tests/emu/emu_tests.mk, included above).

$(TESTS)/fake_check: tests/fake_check.c $(BUILD)/host/grader/wire/records.o $(BUILD)/host/common/util.o
	@mkdir -p $(@D)
	$(Q_LINK)$(CC) $(CFLAGS) $^ -o $@

$(TESTS)/unit_tests: tests/unit_main.c tests/test_common.c tests/test_grader.c tests/test_driver.c tests/test_score.c \
                     tests/test_profiles.c \
                     $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(BUILD)/host/common/parallel.o $(TABLE_OBJS) \
                     tests/suites.h | cunit
	@mkdir -p $(@D)
	$(Q_LINK)$(CC) $(CFLAGS) $(filter %.c %.o,$^) $(CUNIT_LIBS) -lm -lpthread -o $@

test-unit: $(TESTS)/unit_tests $(TESTS)/fake_check
	$(TESTS)/unit_tests $(TESTS)/fake_check

test-docs:
	@tests/docs/paths.sh
	@tests/docs/labs.sh
	@tests/docs/paths.sh labs/*/README.md labs/*.md slides/*.md
	@MAKE="$(MAKE)" tests/docs/help.sh
	@MAKE="$(MAKE)" tests/docs/readme.sh
	@MAKE="$(MAKE)" tests/docs/roofline.sh
	@python3 tests/docs/lessons.py
	@python3 tests/docs/figures.py
	@$(if $(filter 1,$(QUICK)),echo "docs: the checkers' self-tests (figures_selftest.py, functions.py --selftest) left to make test-all (the quick tier)",python3 tests/docs/figures_selftest.py)
	@python3 tests/docs/snippets.py
	@python3 tests/docs/functions.py
	@$(if $(filter 1,$(QUICK)),:,python3 tests/docs/functions.py --selftest)
	@python3 tests/docs/rooms.py
	@python3 tests/docs/rooms.py --selftest
	@python3 tests/docs/globals.py
	@python3 tests/docs/globals.py --selftest
	@python3 tests/docs/made_paths.py

test-docs-mutation:
	@python3 tests/docs/figures_mutation.py

test-bench-tools:
	@tests/bench/run.sh

test-doctor:
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/doctor/run.sh

# make profiles: for every GPU of common/gpu_profiles.h, each lab's timed problem, the memory it
# holds and the predicted time of make grade (grader/plan/grade_model.h). No GPU needed.
.PHONY: profiles
$(BUILD)/host/profiles: grader/tools/profiles.c $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(TABLE_OBJS)
	$(Q_LINK)$(CC) $(CFLAGS) -Igrader $(filter %.c %.o,$^) -lm -o $@

profiles: $(BUILD)/host/profiles
	@$(BUILD)/host/profiles

# labs/skeletons.sha256 names each untouched skeleton (make bench calls an edited one "yours"):
# in a checkout whose labs/ is as committed, it must match the skeletons. A student's edited
# labs/ (or a kit without git) is not the workbook's to check.
test-skeletons:
	@if git diff --quiet HEAD -- labs 2>/dev/null && git ls-files --error-unmatch labs/skeletons.sha256 >/dev/null 2>&1; then \
	    (cd labs && sha256sum -c --quiet skeletons.sha256) || { echo "labs/skeletons.sha256 is out of date: (cd labs && sha256sum [0-9][0-9]-*/*.cu > skeletons.sha256)" >&2; exit 1; }; \
	    echo "skeletons: labs/skeletons.sha256 matches all $$(wc -l < labs/skeletons.sha256) of them"; \
	else echo "skeletons: labs/ is not the workbook's committed one here (edited, or no git): its hashes are not checked"; fi

# Every lab's rules, as the build passes them to grader/make/vet.sh.
test-vet: $(EMU_REWRITE) | toolkit
	@NVCC="$(NVCC)" BUILD=$(BUILD) EMU_NVCC="$(EMU_NVCC)" EMU_BUILD=$(EMU_BUILD) EMU_CXX=$(EMU_CXX) EMU_CC=$(EMU_CC) \
	    CUOBJDUMP=$(CUOBJDUMP) LABS_MK=$(GEN)/labs.mk \
	    $(foreach n,$(LAB_NAMES),FORBID_$(n)="$(FORBID_$(n))" FORBID_PTX_$(n)='$(FORBID_PTX_$(n))' FORBID_SASS_$(n)='$(FORBID_SASS_$(n))') \
	    bash tests/vet/run.sh

# The GPU build, with or without a GPU here. Without one, for the two architectures the code
# tells apart (the oldest, sm_75, and the newest this nvcc knows, with its PTX: the SGEMM
# reference and rungs take cp.async from sm_80 up), not every one make dist builds for.
# QUICK=1 (make test's quick tier): the common and grader sources and the first lab, skeleton
# and reference, for the oldest architecture (and its PTX), and the -lineinfo check on that lab.
TEST_BUILD_ARCHS = $(firstword $(FAT_ARCHS)) $(lastword $(FAT_ARCHS))
TEST_BUILD_QUICK_LAB = $(firstword $(LAB_NAMES))
test-build: | toolkit
ifeq ($(QUICK),1)
	$(MAKE) --no-print-directory runner-$(TEST_BUILD_QUICK_LAB) MODE=gpu STUDENT=labs FAT_ARCHS="$(firstword $(FAT_ARCHS))"
	@NVCC=$(NVCC) BUILD=$(BUILD) MAKE="$(MAKE)" LINEINFO_LABS=$(call lab_dir,$(TEST_BUILD_QUICK_LAB)) tests/build/lineinfo.sh
else
	$(MAKE) --no-print-directory runners MODE=gpu STUDENT=labs FAT_ARCHS="$(TEST_BUILD_ARCHS)"
ifdef STUDENT_KIT
	$(call kit_skip,the solutions' GPU build)
else
	$(MAKE) --no-print-directory runners MODE=gpu STUDENT=solutions FAT_ARCHS="$(TEST_BUILD_ARCHS)"
endif
	@NVCC=$(NVCC) BUILD=$(BUILD) MAKE="$(MAKE)" tests/build/lineinfo.sh
endif
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/build/partial.sh
	@BUILD=$(BUILD) tests/build/problem_exports.sh

# Build both trees' emulated pieces first (one make at a time writes the shared objects),
# then grade the two trees side by side.
emu-runners: $(DRIVER)
ifndef STUDENT_KIT
	$(MAKE) --no-print-directory runners MODE=emu EMU=1 STUDENT=solutions
endif
	$(MAKE) --no-print-directory runners MODE=emu EMU=1 STUDENT=labs

# make explain on the skeletons (the emulated pieces built first, one make at a time).
test-explain: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/explain/run.sh

$(TESTS)/estimate_line: tests/estimate/estimate_line.c $(BUILD)/host/grader/feedback/estimate.o $(BUILD)/host/common/gpu_profiles.o $(BUILD)/host/common/device_info.o
	@mkdir -p $(@D)
	$(Q_LINK)$(CC) $(CFLAGS) $^ -o $@

test-estimate: emu-runners $(TESTS)/estimate_line $(BUILD)/host/profiles
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/estimate/run.sh

# Cheating submissions and honest controls, graded in the sandbox (the emulator's cases here;
# tests/gpu/run-all.sh runs the GPU's).
test-cheats: emu-runners
	@BUILD=$(BUILD) EMU=1 tests/cheats/run.sh

emu-grade-solutions: emu-runners
ifdef STUDENT_KIT
	$(call kit_skip,grading the reference solutions under the emulator)
else
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu_grade.sh solutions
endif

# The untouched skeletons graded as a student runs make grade. In the full workbook test-dist
# does it in the student kit, every lab, as a student receives them (the same grading, the
# references prebuilt): make test-all grades them once, there (make test: labs 01 and 06 here,
# with their WHERE and ESTIMATE lines, and lab 01 there). In a kit, here.
emu-grade-labs: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) $(if $(and $(filter 1,$(QUICK)),$(if $(STUDENT_KIT),,1)),LABS=01$(comma)06) tests/emu_grade.sh labs

# The grader's device checks (common/devcheck.cu: fresh inputs, hashes, comparisons) against
# the host, under the emulator (tests/devcheck; on a GPU it also gives their rates: --rate).
$(TESTS)/devcheck_test: tests/devcheck/devcheck_test.cu $(EMUB)/common/devcheck.o $(EMUB)/common/check.o $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
	@mkdir -p $(@D)
	$(Q_EMU)$(call emu_compile_cu,$<,$@.o,-Icommon)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $@.o $(EMUB)/common/devcheck.o $(EMUB)/common/check.o -o $@ $(EMU_LDLIBS)
test-devcheck: $(TESTS)/devcheck_test
	@$(TESTS)/devcheck_test

# The tests' cache of student objects: a byte-identical file compiles once, any other on its own,
# and no compile sees the cache (tests/emu/student_cache.sh).
emu-student-cache: emu-runners
	@BUILD=$(BUILD) MAKE="$(MAKE)" tests/emu/student_cache.sh

# A student's file deleted after a build is graded as missing, not by the earlier build's object.
emu-file-gone: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu/file_gone.sh

# A student's own helper files (tests/emu/helpers.sh): a fix at any depth built again, no header
# of theirs where the toolkit's, the workbook's or the system's are looked up, no link followed,
# '..' only inside the lab's folder.
emu-helpers: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu/helpers.sh

# The memory the harness shares with its workers, counted (tests/emu/regions.sh).
emu-regions: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu/regions.sh

# One harness serves every lab of a run; one stopped mid-lab (a check's time limit) is replaced
# by a fresh one, and the next lab's verdicts are what they are alone; one reference's worker
# serves every lab, and one that died between labs is replaced (tests/emu/onehar.sh).
emu-onehar: emu-runners
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu/onehar.sh

# QUICK=1 (make test's quick tier): the skeletons of labs 01 and 06 graded here too, each with its
# WHERE and ESTIMATE lines (test-dist's kit grades lab 01's alone then); make test-all: every
# skeleton, in the kit.
ifdef STUDENT_KIT
test-emu: test-emulator test-devcheck emu-grade-solutions emu-grade-labs emu-file-gone emu-helpers emu-student-cache emu-regions emu-onehar
else
test-emu: test-emulator test-devcheck emu-grade-solutions emu-file-gone emu-helpers emu-student-cache emu-regions emu-onehar $(if $(filter 1,$(QUICK)),emu-grade-labs)
endif

# Every ladder rung graded as a student's file (its solution's headers beside it, compiled in the
# compile sandbox as the student's helpers), rung K of every lab in one tree. A suite of its own
# that no other waits for: under make test-all it fills a core the chain of suites leaves idle.
test-rungs: emu-runners
ifdef STUDENT_KIT
	$(call kit_skip,grading the ladder's rungs as students' files)
else
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/emu/rungs.sh
endif

# The sandbox where namespaces are refused: the emulated pieces, graded under a wrapper.
# (no cache of student objects there: each attack is compiled under the sandbox it tests)
test-sandbox: emu-runners
	@BUILD=$(BUILD) EMU=1 STUDENT_CACHE= tests/sandbox/run.sh

# Stopping a grading run stops everything it started: lab 01 under the emulator, its shared
# pieces built first in a make of their own (one make at a time writes them).
test-stop: $(BATCH)
	@$(MAKE) -s --no-print-directory batch-prebuild EMU=1 BATCH_LABS=coalescing
	@MAKE="$(MAKE)" STUDENT_CACHE= python3 tests/stop/test_stop.py $(BUILD)

# The course server on loopback (tests/serve/serve_test.py). Its full tier grades with make grade
# itself on the emulator (lab 01, its shared pieces built first in a make of their own); the cases
# that test no grading (the quick tier's among them) grade through a stand-in
# (tests/serve/stand-in-grade.sh).
# What it printed: BUILD/tests/serve.txt.
test-serve: serve-programs
ifneq ($(QUICK),1)
	@$(MAKE) -s --no-print-directory batch-prebuild EMU=1 BATCH_LABS=coalescing
endif
	@mkdir -p $(TESTS)
	@set -o pipefail; BUILD=$(BUILD) python3 tests/serve/serve_test.py $(if $(filter 1,$(QUICK)),--quick) | tee $(TESTS)/serve.txt

# A tenth lab, in a copy of the workbook (its emulator library copied with it, not rebuilt).
test-new-lab: $(EMU_LIB)
	@BUILD=$(BUILD) tests/newlab/run.sh

# The notebook, as a student runs it: its cells run make grade themselves, on build/grade.
# One lab by default (about 10 s warm; all nine took 1 to 2 minutes on 2 shared cores).
NOTEBOOK_LABS ?= 01
test-notebook: $(DRIVER)
	@BUILD=$(BUILD) NOTEBOOK_LABS=$(NOTEBOOK_LABS) tests/notebook/run.sh

# Under `make test` and `make test-all` (often with -j) they start after the emulator tests and
# the cheats, one grading suite at a time, as test-batch does.
TEST_GOALS := $(filter test test-all,$(MAKECMDGOALS))
ifneq ($(TEST_GOALS),)
test-sandbox: | test-cheats
test-stop: | test-emu test-sandbox
test-notebook: | test-emu test-stop
test-new-lab: | test-emu test-stop
test-serve: | test-stop
endif

# `make test` and `make test-all` as typed run their suites side by side on the cores there are
# (as make -jN would; make -j1 runs one at a time), and say first what they are about to
# install and for which test (tests/packages.sh), before any recipe runs (once: not again when
# make restarts to read the lab manifest it has just built).
ifneq ($(TEST_GOALS),)
ifeq ($(filter -j% --jobs%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
ifeq ($(MAKE_RESTARTS),)
TEST_PACKAGES_SAY := $(shell BUILD=$(BUILD) QUICK=$(QUICK) tests/packages.sh | sed -e ':a' -e 'N' -e '$$!ba' -e 's/\n/@@/g')
$(if $(TEST_PACKAGES_SAY),$(info $(subst @@,$(EMU_NEWLINE),$(TEST_PACKAGES_SAY))))
endif
endif

# Every suite of `make test-all`; the summary counts them. In a student kit the suites that need
# the solutions' sources say so and count as skipped. Under -j, make starts them in this order:
# the longest chain first (the emulated build, the cheats, then the sandbox, stop and notebook
# suites that wait on them), and the suites that need no grading (the vetting rows, the GPU
# build) last, to fill the cores while the chain's waits (test-stop's) leave them idle.
TEST_SUITES := test-skeletons test-unit test-cheats test-emu test-sandbox test-stop test-notebook test-new-lab \
               test-explain test-estimate test-batch test-serve test-dist test-rungs test-vet test-build test-docs test-bench-tools \
               test-doctor test-docs-mutation
# The quick tier's suites, each its slice: all but those whose every case is beyond a quick look
# (the notebook, the tenth lab, the ladder's rungs, the estimate's agreement table: each lab is
# graded by its solution, and the ESTIMATE line by the skeletons of test-emu's slice), then
# test-tiers, which checks that what ran touched every room and every lab.
TEST_FULL_ONLY := test-notebook test-new-lab test-rungs test-estimate test-docs-mutation
TEST_QUICK_SUITES := $(filter-out $(TEST_FULL_ONLY),$(TEST_SUITES)) test-tiers
KIT_SKIPPED_SUITES := test-batch test-dist test-new-lab test-rungs test-tiers
kit_summary = $(words $(filter-out $(KIT_SKIPPED_SUITES),$(1))) suites passed ($(patsubst test-%,%,$(filter-out $(KIT_SKIPPED_SUITES),$(1)))), \
    $(words $(filter $(KIT_SKIPPED_SUITES),$(1))) skipped ($(patsubst test-%,%,$(filter $(KIT_SKIPPED_SUITES),$(1))): they need the solutions' sources); the solutions' parts of build and emu were skipped too
.PHONY: test-all test-tiers
test: $(TEST_QUICK_SUITES)
ifdef STUDENT_KIT
	@echo "make test (student kit, the quick tier): $(call kit_summary,$(TEST_QUICK_SUITES))"
else
	@echo "make test: $(words $(TEST_QUICK_SUITES)) suites passed, the quick tier (each suite's quick slice; make test-all runs every case): $(patsubst test-%,%,$(TEST_QUICK_SUITES))"
endif

test-all: $(TEST_SUITES)
ifdef STUDENT_KIT
	@echo "make test-all (student kit): $(call kit_summary,$(TEST_SUITES))"
else
	@echo "make test-all: $(words $(TEST_SUITES)) suites passed, every case: $(patsubst test-%,%,$(TEST_SUITES))"
endif

# The quick tier's promise, held after its suites ran (tests/tiers/check.sh): every room of the
# grader (each grader/*/ folder, tests/tiers/rooms.tsv says which quick suite touches it and
# what it leaves in BUILD) and every lab the manifest lists (graded by its solution, its emulated
# pieces built) touched in this run. A tenth lab or room is covered, or named, without a list to edit.
TEST_TIERS_STAMP := $(BUILD)/tests/tiers.start
ifneq ($(filter test,$(MAKECMDGOALS)),)
ifeq ($(MAKE_RESTARTS),)
$(shell mkdir -p $(BUILD)/tests && touch $(TEST_TIERS_STAMP))
endif
test-tiers: | $(filter-out test-tiers,$(TEST_QUICK_SUITES))
endif
ifdef STUDENT_KIT
test-tiers:
	$(call kit_skip,the quick tier's rooms and labs: it grades the solutions and builds a kit)
else
test-tiers: $(MANIFEST)
	@BUILD=$(BUILD) MANIFEST=$(MANIFEST) QUICK_SUITES="$(TEST_QUICK_SUITES)" STAMP=$(TEST_TIERS_STAMP) tests/tiers/check.sh
endif
