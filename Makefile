# Makefile - every verb of the CUDA performance workbook (`make help` prints this).
#
# Students
#   make grade                 grade every lab in labs/ on this machine's GPU
#                              (no GPU: correctness on the CPU emulator, speed skipped); a
#                              speed check short of its mark gets a WHERE line: your costliest
#                              line as the CPU emulator counts it (GRADE_WHERE=0: none); with
#                              no GPU, an ESTIMATE of the speed on a T4 (GPU_PROFILE=h200: on
#                              that GPU), from the same count: never a point; a fault of your
#                              kernel on a GPU runs its check once more on the emulator, to
#                              name your line (GRADE_FAULT_RERUN=off: not)
#   make grade LAB=transpose   one lab (name, number or folder: LAB=06); LAB=01,06 for several
#   make grade STUDENT=dir     grade another tree laid out like labs/ (STUDENT=solutions
#                              grades the reference solutions: the grader's self-check)
#   make bench [LAB=x]         skeleton vs ladder vs reference vs hardware ceiling, one table (GPU)
#   make roofline [FROM=h200]  your GPU's roofline drawn from make bench's tables, each lab's
#                              skeleton (or yours), rungs and reference placed on it (FROM=h200:
#                              the workbook's recorded H200 tables; no GPU needed to draw)
#   make profile LAB=x         your kernel's and the reference's key counters, side by side (GPU,
#                              Nsight Compute; lab 05: a timeline of copies and kernels)
#   make explain LAB=x [STUDENT=dir] [GPU_PROFILE=h200]  the lab's mechanism counted by the
#                              CPU emulator, per source line, yours beside the reference's
#                              (sectors per request, bank-conflict wavefronts, divergent
#                              branches, waves on that GPU's SMs, lab 05: copies and kernels
#                              in the order a GPU's engines would run them ...; no GPU needed;
#                              any tree's code runs only in the grader's sandbox); PREDICT=1
#                              asks the lab's questions first (predict, then measure); with
#                              GPU_PROFILE, the speed the counts suggest on that GPU, each term
#                              (make grade prints that estimate with no GPU: a T4 unset)
#   make sanitize [LAB=x]      the correctness cases under compute-sanitizer's four tools (GPU)
#                              (bench, profile and sanitize run your labs/ outside the sandbox,
#                              in one process with the tool: another STUDENT= tree is refused)
#   make submit LAB=x [SERVER=url TOKEN=t]  grade a lab on your course's GPU server: the report
#                              make grade prints there, and its exit status (STUDENT= as make
#                              grade takes it; SERVER and TOKEN may be lines in .submit)
#   make submit-status         your submissions to the course server: labs, states, results
#   make doctor                is this machine ready? toolkit, driver, GPU, counters, tools; on a
#                              GPU, what a process's start and a launch cost, and its copy engines
#   make                       build the grader and every lab's harness and workers
#   make clean                 remove build/
#   make help                  this list
# Instructors
#   make grade-batch SUBMISSIONS=dir   grade one subfolder per student into a gradebook
#   make roster ROSTER=csv COURSE=dir  a token for each student of the roster, into
#                              dir/tokens.csv (0600; REVOKE=name revokes one)
#   make serve COURSE=dir PORT=n  the course server on this GPU host (127.0.0.1; ADDR=, TLS_CERT=
#                              and TLS_KEY=, DEADLINE=, RATE=, QUEUE_MAX=, SLURM=n: through srun;
#                              grader/serve/README.md)
#                              until Ctrl-C or SIGTERM; its status page: /status
#   make serve-export COURSE=dir  each student's best per lab into the batch's gradebook (CSV,
#                              JSON Lines, Gradescope)
#                              (make serve-programs builds the server's programs alone)
#   make gradescope-kit        the Gradescope autograder folder and zip (KIT=build/gradescope)
#   make bench-grading         how long grading takes, lab by lab: correctness, speed, WHERE,
#                              warm make grade of the solutions and skeletons (GPU; RUNS=3,
#                              BATCH_N=4: grade-batch's students per hour; tests/gpu/bench-grading.sh)
#   make profiles              each lab's timed problem, memory and predicted grading time on
#                              ten real GPUs, T4 to B200 (no GPU needed)
#   make dist                  the student kit (build/dist/cuda-workbook.tar.gz): the labs, grader,
#                              tests and slides, each reference prebuilt, no solution sources
#   make new-lab NAME=x        a new lab's three folders (grader/labs/, labs/, solutions/ NN-x),
#                              from a neutral template (a placeholder task): it builds and
#                              grades at once; then make docs-gen
#   make docs-gen              what lists every lab for people, derived from the lab folders:
#                              README.md's table, the notebook's lab cells, the skeletons'
#                              hashes, a slide deck to write for a lab without one
#   make slides                one PDF per lab's deck in build/slides/; make slides-check
#                              renders every page; make slides-tools installs what they need
# Tests (no GPU needed)
#   make test                  the quick tier (about five minutes on two cores): each suite's
#                              quick slice, side by side on the cores there are, then a count of
#                              them and test-tiers (every grader room and every lab touched); it
#                              first lists what it will install for which suite (TEST_INSTALL=no:
#                              nothing; tests/packages.sh)
#   make test-all              the full tier: every case of every suite below (what CI runs)
#   make test-unit, test-docs, test-bench-tools, test-doctor, test-vet, test-build, test-emu (with
#        test-emulator and test-devcheck), test-explain, test-estimate, test-cheats, test-sandbox,
#        test-batch, test-serve, test-stop, test-dist, test-notebook, test-new-lab, test-rungs (every ladder
#        rung graded as a student's file), test-skeletons and test-tiers: one suite each, every
#        case (QUICK=1: its quick slice; tests/tests.mk says what each checks); make
#        test-toolkits builds and grades with older CUDA toolkits (not in either tier); make
#        test-docs-mutation shifts every figure of the lessons by +-5% and +-7% and checks each
#        shift fails test-docs (about a minute; in make test-all)
#   make bench-emu             the CPU emulator's CPU time per thread (an empty kernel) and per
#                              element (a copy, a block reduction), against BENCH_BASE=commit's
#                              build side by side (tests/emu/bench.sh; not in either tier)
#
# Knobs
#   LAB=x,y        labs to grade, bench, profile, explain or sanitize (default: all)
#   STUDENT=dir    the tree graded (default: labs), or one .cu file with one LAB=
#   SEED=0x...     reproduces a run's hidden cases
#   EMU=1          the CPU emulator even where there is a GPU
#   CUDA_ARCH=sm_86  build for one architecture; CUDA_HOME=/path picks the toolkit (CUDA 11.8
#                  or newer) and NVCC_CCBIN=g++-N its host compiler
#   V=1            print the full build commands
#   BUILD=dir      where everything is built (default: build); GRADE_DIR=dir the report's
#                  folder (default: BUILD/grade; two runs side by side need two)
#   GRADER_ISOLATION=off  grade in one process where student code cannot be isolated (every
#                  report then says it is not tamper-proof); GRADER_REQUIRE_ISOLATION=1
#                  refuses to grade there instead; GRADER_HIDE="dir ..." folders student code
#                  may not read beside the grader's own (grade-batch names its output and
#                  submissions)
#   GRADER_CONFIG=file, GRADER_SET="lab.key=value,..."  override thresholds, points and
#                  timeouts (grader/plan/config.h; see grader/README.md)
#   grade-batch:   OUT=dir (default: build/batch), GPUS=all|0,1 (one worker per GPU),
#                  JOBS=n (workers on the emulator), WAIT=1 (wait for another batch's lock),
#                  ALLOW_UNISOLATED=1 (grade where student code cannot be isolated)
#   sanitize:      SANITIZE_TOOLS="memcheck racecheck" picks compute-sanitizer's tools
#   profile:       EXPLAIN_SIZE=1 runs each problem at make explain's size, to set the two
#                  side by side; DEVICE_G=1 (with a BUILD of its own) builds device code with
#                  nvcc -G: one instruction per access as written, none merged by the compiler
#   dist:          DIST=dir, DIST_NAME=name

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

BUILD   ?= build
LAB     ?=
STUDENT ?= labs
SEED    ?=
EMU     ?=

# ------------------------------------------------------------------------------------------
# The build (grader/make/, its README says what each file holds): the toolkit and the flags,
# the labs and the student's paths, the grader's host programs and the lab manifest, each lab's
# pieces in either mode with the student's sandboxed compile. Included here, in this order,
# before the verbs that use them.

include grader/make/toolkit.mk
include grader/make/paths.mk
include grader/make/host.mk
include grader/make/lab_rules.mk

# ------------------------------------------------------------------------------------------
# Verbs

.PHONY: all runners grade grade-batch bench bench-grading roofline test test-all clean toolkit help doctor profile explain sanitize new-lab docs-gen

all: $(DRIVER) runners
	@echo "Built the grader and $(words $(LAB_NAMES)) labs. Next: make grade (or make test)."

runners: $(foreach n,$(LAB_NAMES),$(call lab_pieces,$(n)))

# One lab, all of it (make sanitize, and tests that build a lab ahead).
# make bench's ladder rungs of a lab (solutions/NN-name/steps/*.cu), built as implementations.
steps_of = $(sort $(wildcard solutions/$(call lab_dir,$(1))/steps/*.cu))
steps_pieces = $(foreach f,$(call steps_of,$(1)),$(GPU)/steps/$(1)/$(basename $(notdir $(f))).so)
$(foreach n,$(LAB_NAMES),$(eval runner-$(n): $(call lab_pieces,$(n)) ;))

toolkit:
ifdef NVCC_MISSING
	@echo "error: the CUDA toolkit was not found (no nvcc on PATH, in CUDA_HOME or /usr/local/cuda)." >&2
	@echo "       Install it from your distribution or NVIDIA, or run: make CUDA_HOME=/path/to/cuda" >&2
	@exit 2
else
	@TOOLKIT_STAMP=$(BUILD)/gen/toolkit.ok grader/make/check-toolkit.sh $(NVCC) --quiet
endif

GRADE_DIR ?= $(BUILD)/grade
# GRADER_ISOLATION=off grades in one process (no sandbox): only for machines that cannot
# isolate, and every report then says the run is not tamper-proof.
GRADER_ISOLATION ?= on
# Under a speed check short of its mark (or one the emulator cannot time), make grade prints
# the costliest line of the student's file as the CPU emulator counts it (WHERE:), within
# GRADE_WHERE_S seconds for the whole run (under a GPU, make grade builds the emulator's copy of
# each selected lab for it beside the GPU's). GRADE_WHERE=0 leaves it out, and its build.
GRADE_WHERE ?= 1
GRADE_WHERE_S ?= 60
# On a GPU, a fault of the student's kernel (an illegal address, a trap, a device-side assert)
# runs its check once more on the emulator's build of the lab, in the sandbox, to name the line
# (grader/feedback/fault_rerun.h; it needs that build, so not with GRADE_WHERE=0).
# GRADE_FAULT_RERUN=off leaves it out; =always reruns under the emulator too (the tests).
GRADE_FAULT_RERUN ?=
# GRADE_PATHS=submission (grade-batch sets it): paths shown as the student's submission has
# them (01-coalescing/coalescing.cu, a log by its name), the grader's folders left out.
GRADE_PATHS ?= as-given

# Build, then grade (grader/make/grade.mk): this make builds what LAB= selects (a line per lab as it
# finishes; a lab whose build fails is recorded as such, and the others go on), then runs the
# driver once, told where the build left its status per lab (--built). The driver grades; it
# runs neither make nor a shell. Under a GPU its WHERE line counts the emulator's build of the
# lab (--where-*), which this make built beside the GPU's.
include grader/make/grade.mk
# With a GPU, make all builds the CPU emulator's copy of every lab too (the WHERE line's count:
# WHERE_B), so that neither a first make grade nor a batch's first student waits for it.
all: $(foreach n,$(LAB_NAMES),$(call where_pieces,$(n)))

grade: $$(grade_build)
	@$(if $(grade_ok),grader/make/lab_status.sh end $(GRADE_BUILT))
	@mkdir -p $(GRADE_DIR)
	@$(if $(filter command line,$(origin GRADE_ARGV)),printf '%s\0' $(GRADE_DRIVER_CMD) >$(GRADE_ARGV),exec $(GRADE_DRIVER_CMD))

grade-batch: $(DRIVER)
	@$(BATCH_RUN)

# make bench-grading: the time grading takes, per lab and whole (tests/gpu/bench-grading.sh).
bench-grading:
	@OUT=$(BUILD)/bench-grading BUILD=$(BUILD) tests/gpu/bench-grading.sh

# make bench: per lab, the skeleton (or STUDENT's file), every ladder rung in
# solutions/NN-name/steps/, the reference and the ceiling, timed side by side.
# The file in labs/ is "skeleton" while it is byte for byte the workbook's (labs/skeletons.sha256),
# "yours" once edited; another tree's is "yours".
is_skeleton = $(and $(filter labs,$(STUDENT)),$(shell grep -F ' $(STUDENT_REL_$(1))' labs/skeletons.sha256 2>/dev/null | (cd labs && sha256sum -c --status 2>/dev/null) && echo yes))
bench_variants = $(if $(call is_skeleton,$(1)),skeleton,yours)=$(STUDENT_OBJS)/$(1)/student.so $(foreach f,$(call steps_of,$(1)),steps/$(basename $(notdir $(f)))=$(GPU)/steps/$(1)/$(basename $(notdir $(f))).so)

# (a tree not yours, or no GPU: nothing is built, and the recipe says why)
bench_runs = $(and $(own_tree),$(filter gpu,$(MODE)))
bench: $$(if $$(bench_runs),$$(grade_build),$$(DRIVER))
	@$(call need_own_tree,the grader (CUDA events time it there),To time that tree's code beside the reference in the sandbox: make grade STUDENT=$(STUDENT); or read it and copy it into your labs/ first.)
ifneq ($(MODE),gpu)
	@echo "make bench times kernels on a GPU, and there is none here (nvidia-smi lists none)." >&2
	@exit 2
endif
	@$(if $(grade_ok),grader/make/lab_status.sh end $(GRADE_BUILT))
	@mkdir -p $(BUILD)/bench && rm -f $(BUILD)/bench/*.tsv
ifneq ($(STUDENT_KIT),)
	@echo "The ladder rungs are not in this student kit: the table times your code, the reference and the ceiling."
endif
	@set -o pipefail; $(DRIVER) --bench --labdir $(LABB) --student-dir $(STUDENT_OBJS) --worker $(WORKER) \
	    --mode gpu --lab "$(LAB)" --student "$(STUDENT)" --logs $(BUILD)/bench \
	    $(foreach n,$(LAB_NAMES),--variants '$(n):$(call bench_variants,$(n))') \
	    $(if $(grade_ok),--built $(GRADE_BUILT)) | tee $(BUILD)/bench/table.txt
	@grader/tools/bench-chart -o $(BUILD)/bench $(BUILD)/bench/*.tsv && \
	    echo "Charts: $(BUILD)/bench/<lab>.svg. Tables for the lessons: grader/tools/bench-tables $(BUILD)/bench/<lab>.tsv"

# make profile LAB=x / make sanitize [LAB=x,y]: one lab's speed problems under Nsight Compute
# (lab 05: a timeline from CUDA events), or its correctness cases under compute-sanitizer;
# your code and the reference run in the harness's own process (tools follow one process;
# neither grades). A lab's counters are grader/labs/NN-name/profile.tsv; PROFILE_name :=
# timeline in its lab.mk draws the timeline instead.
# LAB= as the driver reads it (grader/plan/lab_select.h): one lab name a line, or its error.
tool_labs = $(DRIVER) --list-labs --lab "$(LAB)"
tool_args = --lab $(call lab_dir,$(1)) --harness $(LABB)/$(1)/harness --worker $(WORKER) \
    --student $(STUDENT_OBJS)/$(1)/student.so --reference $(LABB)/$(1)/reference.so \
    --label "$(if $(filter labs,$(STUDENT)),your code,$(STUDENT)) ($(call student_src,$(1)))"

need_gpu = $(if $(filter gpu,$(MODE)),,echo "make $@ runs your kernels on a GPU, and there is none here (nvidia-smi lists none)." >&2; exit 2)

# make bench, profile and sanitize run the code in the harness's own process, outside the
# grader's sandbox: a profiler, a sanitizer and CUDA events follow one process, and cannot reach
# into a sandboxed worker. So they run only code of this checkout that is yours or the
# workbook's: your labs/ (on your own account, as any program you write), solutions/ and the
# GPU tests' planted bugs (tests/gpu/). Another tree (a classmate's, a submission) is refused
# with what to run instead; make grade and make explain run any tree's code only in the
# sandbox. (Paths resolved: no link leads out.)
own_trees := $(foreach d,labs solutions tests/gpu,$(realpath $(d)) $(realpath $(d))/%)
own_tree = $(filter $(own_trees),$(realpath $(STUDENT)))
define need_own_tree
$(if $(own_tree),,echo "make $@ runs the code outside the grader's sandbox, in one process with $(1), so it runs only" >&2; \
    echo "your own labs/ (or the workbook's solutions/ and tests/gpu/), not STUDENT=$(STUDENT). $(2)" >&2; exit 2)
endef

profile: $(DRIVER)
	@$(call need_own_tree,Nsight Compute (a profiler cannot follow code into the sandbox),The same mechanism counted on the CPU emulator inside the sandbox: make explain STUDENT=$(STUDENT); or read the code and copy it into your labs/ first.)
	@$(need_gpu)
	@labs=$$($(tool_labs)) || exit 2; \
	    if [ $$(echo $$labs | wc -w) != 1 ]; then echo "make profile looks at one lab: make profile LAB=transpose (or LAB=06)" >&2; exit 2; fi; \
	    $(MAKE) -s --no-print-directory profile-lab-$$labs

# make roofline: the roofs (copy bandwidth, FP32 FMA peak) and the points of make bench's last
# tables (build/bench/*.tsv), drawn by grader/feedback/roofline.awk; FROM=h200 draws the
# workbook's recorded H200 runs (labs/*/bench-h200.tsv) instead.
roofline:
	@files="$(if $(filter h200,$(FROM)),$(wildcard labs/*/bench-h200.tsv),$(wildcard $(BUILD)/bench/*.tsv))"; \
	    if [ -z "$$files" ]; then \
	        echo "make roofline draws make bench's tables, and $(BUILD)/bench/ has none: run make bench LAB=01,03,04,07,09 on a GPU first (or make roofline FROM=h200 for the workbook's recorded H200)" >&2; \
	        exit 2; \
	    fi; \
	    LC_ALL=C awk -F'\t' -f grader/feedback/roofline.awk $$files

# make explain LAB=x: the same calls under the CPU emulator (on any machine, GPU or not), with every
# warp's memory requests and branches counted per source line, or the order of the copies and
# kernels on the engines; the lab's counters are grader/labs/NN-name/explain.tsv. PREDICT=1: the
# table's predict rows are asked first; on a terminal the counts wait for Enter (never in a
# script: without a terminal nothing waits).
explain: $(DRIVER)
	@labs=$$($(tool_labs)) || exit 2; \
	    if [ $$(echo $$labs | wc -w) != 1 ]; then echo "make explain looks at one lab: make explain LAB=coalescing (or LAB=01)" >&2; exit 2; fi; \
	    $(MAKE) -s --no-print-directory explain-lab-$$labs EMU=1

sanitize: $(DRIVER)
	@$(call need_own_tree,compute-sanitizer (it cannot follow code into the sandbox),Its correctness cases inside the sandbox: make grade STUDENT=$(STUDENT) (with no GPU or EMU=1 the emulator reports out-of-bounds accesses and races); or read the code and copy it into your labs/ first.)
	@$(need_gpu)
	@labs=$$($(tool_labs)) || exit 2; \
	    $(MAKE) -s --no-print-directory $$(printf 'runner-%s ' $$labs) || exit 2; \
	    status=0; for n in $$labs; do $(MAKE) -s --no-print-directory sanitize-lab-$$n; \
	    s=$$?; [ $$s -gt $$status ] && status=$$s; done; exit $$status

# One lab each (%: its name, from tool_labs).
profile-lab-%: runner-%
	@echo "Profiling lab $(call lab_dir,$*): one call of yours and one of the reference per speed problem..."
	@grader/feedback/profile.sh $(call tool_args,$*) --out $(BUILD)/profile/$* \
	    $(if $(filter timeline,$(PROFILE_$*)),--timeline) $(if $(filter 1,$(EXPLAIN_SIZE)),--emulator-size)

# What make explain and the WHERE line are told besides the lab's pieces: the copy of the
# student's file that was compiled (the only file its lines are quoted from) and its name as
# the student knows it, the reference's source (a student kit has none: no quotes), and the
# folders no worker may see beside the build's own (GRADER_HIDE).
explain_args = --source $(STUDENT_OBJS)/$(1)/source.cu --shown $(call student_src,$(1)) \
    $(if $(call ref_src,$(1)),--ref-source $(call ref_src,$(1))) $(foreach d,$(GRADER_HIDE) $(STUDENT_CACHE),--hide '$(d)')

# With GPU_PROFILE, the estimate is set against the lab's pass mark in force (the course config's,
# or its table's), which lab-manifest reads as the driver does.
explain-lab-%: $(EMU_REWRITE) $(EMU_LIB) runner-% $(if $(GPU_PROFILE),$(BUILD)/host/profiles $(MANIFEST))
	@$(if $(GPU_PROFILE),pass_mark=$$($(MANIFEST) pass-mark $*) || exit 2;) \
	grader/feedback/explain.sh $(call tool_args,$*) $(call explain_args,$*) --out $(BUILD)/explain/$* \
	    $(if $(GPU_PROFILE),--gpu $(GPU_PROFILE) --profiles $(BUILD)/host/profiles --pass-mark "$$pass_mark") \
	    $(if $(filter 1,$(PREDICT)),--predict)

sanitize-lab-%:
	@echo; echo "== lab $(call lab_dir,$*)"
	@grader/feedback/sanitize.sh $(call tool_args,$*) --out $(BUILD)/sanitize/$* $(if $(SEED),--seed $(SEED))

# A lab is three folders; the build finds it by them (grader/make/new-lab.sh), and what lists
# the labs for people is derived from them (grader/make/docs_gen.py; make test-docs checks it).
new-lab:
	@grader/make/new-lab.sh '$(NAME)'
	@grader/make/docs_gen.py

docs-gen:
	@grader/make/docs_gen.py

doctor: $(SANDBOX_RUN)
	@SANDBOX_RUN=$(SANDBOX_RUN) BUILD=$(BUILD) grader/tools/doctor.sh

clean:
	rm -rf $(BUILD)

help:
	@awk 'NR > 2 && !/^#/ {exit} NR > 2 {sub(/^# ?/, ""); print}' Makefile

include grader/batch/batch.mk
include grader/serve/serve.mk
include grader/dist/dist.mk
include tests/tests.mk
-include slides/slides.mk
