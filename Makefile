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
#   make doctor                is this machine ready? toolkit, driver, GPU, counters, tools; on a
#                              GPU, what a process's start and a launch cost, and its copy engines
#   make                       build the grader and every lab's harness and workers
#   make clean                 remove build/
#   make help                  this list
# Instructors
#   make grade-batch SUBMISSIONS=dir   grade one subfolder per student into a gradebook
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
#   make test                  every suite below, side by side on the cores there are, then a
#                              count of them; it first lists what it will install for which
#                              suite (TEST_INSTALL=no: nothing; tests/packages.sh)
#   make test-unit, test-docs, test-bench-tools, test-doctor, test-vet, test-build, test-emu (with
#        test-emulator and test-devcheck), test-explain, test-estimate, test-cheats, test-sandbox,
#        test-batch, test-stop, test-dist, test-notebook, test-new-lab, test-rungs (every ladder
#        rung graded as a student's file) and test-skeletons: one
#        suite each (tests/tests.mk says what each checks); make test-toolkits builds and grades
#        with older CUDA toolkits (not in make test)
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
# Toolkit and target architecture

NVCC := $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc,$(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc)))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
ifeq ($(wildcard $(NVCC)),)
NVCC_MISSING := 1
endif
# NVCC_CCBIN=g++-11 picks nvcc's host compiler (each CUDA release takes a range of gcc
# versions): every nvcc run gets it through NVCC_PREPEND_FLAGS, the compile sandbox's too.
ifneq ($(NVCC_CCBIN),)
ifeq ($(filter -ccbin=$(NVCC_CCBIN),$(NVCC_PREPEND_FLAGS)),)
export NVCC_PREPEND_FLAGS := -ccbin=$(NVCC_CCBIN) $(NVCC_PREPEND_FLAGS)
endif
endif

# The GPUs here, asked of the driver once: their compute capabilities (90 ...), "native" where
# nvidia-smi lists a GPU but cannot say (drivers before 510), or nothing. The answer goes to
# every make this one starts (the lab builds of make grade), which then ask nothing again.
ifeq ($(origin WORKBOOK_GPU_ARCHS),undefined)
WORKBOOK_GPU_ARCHS := $(shell a=$$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d . | grep -E '^[0-9]+$$' | sort -u); \
    if [ -n "$$a" ]; then echo $$a; elif nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then echo native; fi)
endif
export WORKBOOK_GPU_ARCHS
HAVE_GPU := $(if $(WORKBOOK_GPU_ARCHS),1)
ifeq ($(EMU),1)
MODE := emu
else ifeq ($(HAVE_GPU),1)
MODE := gpu
else
MODE := emu
endif

# -arch=native on a GPU machine; otherwise machine code for every architecture from sm_75 up
# that this nvcc knows, plus PTX of the newest so later GPUs can compile it at load time (the
# fat binary: make dist builds the kit's prebuilt reference so on any machine).
ifndef NVCC_MISSING
ifeq ($(origin FAT_ARCHS),undefined)
# (asked of nvcc once, when first needed)
FAT_ARCHS = $(eval FAT_ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([0-9]*\)$$/\1/p' | awk '$$1 >= 75' | sort -n | tr '\n' ' '))$(FAT_ARCHS)
endif
FAT_ARCH_FLAGS = $(foreach a,$(FAT_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) -gencode=arch=compute_$(lastword $(FAT_ARCHS)),code=compute_$(lastword $(FAT_ARCHS))
endif
ifneq ($(CUDA_ARCH),)
ARCH_FLAGS := -arch=$(CUDA_ARCH)
else ifeq ($(HAVE_GPU),1)
# The GPUs' own architectures, asked of the driver (above) rather than by nvcc -arch=native,
# so that the student's compile needs no GPU in its sandbox.
GPU_ARCHS := $(filter-out native,$(WORKBOOK_GPU_ARCHS))
ARCH_FLAGS := $(if $(GPU_ARCHS),$(if $(word 2,$(GPU_ARCHS)),$(foreach a,$(GPU_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)),-arch=sm_$(GPU_ARCHS)),-arch=native)
else ifndef NVCC_MISSING
ARCH_FLAGS = $(FAT_ARCH_FLAGS)
endif

CC      ?= cc
CFLAGS  := -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers -Werror=implicit-function-declaration
# The build prints one short line per step (V=1 prints the full commands); make grade and
# make bench print one line per stage instead (grader/build/lab_status.sh), and none per step.
ifeq ($(V),1)
Q_CC :=
Q_EMU :=
Q_NVCC :=
Q_LINK :=
Q_VET :=
else ifneq ($(filter grade bench,$(MAKECMDGOALS)),)
Q_CC := @
Q_EMU := @
Q_NVCC := @
Q_LINK := @
Q_VET := @
Q_PCH := @
else
Q_CC = @echo "  CC      $<";
Q_EMU = @echo "  EMU-CC  $<";
Q_NVCC = @echo "  NVCC    $<";
Q_LINK = @echo "  LINK    $@";
Q_VET = @echo "  VET     $<";
endif
NVFLAGS = -O3 -g $(if $(filter 1,$(DEVICE_G)),-G,-lineinfo) -std=c++17 $(ARCH_FLAGS) $(LAB_INCLUDES) -Icommon -I$(BUILD)/gen \
           -Xcompiler -Wall -Wno-deprecated-gpu-targets

# ------------------------------------------------------------------------------------------
# The labs: labs/NN-name/name.cu with solutions/NN-name/name.cu, and grader/labs/NN-name/
# with the contract name.h, the manifest and check table table.c, the problem problem.cu and
# the shim shim_untrusted.cu. The table is the one place for the lab's entry points and their
# signatures and for what its student file may not use: ENTRY_name, FORBID_name (libraries,
# by their use), FORBID_PTX_name and FORBID_SASS_name (over instructions) come from it, through
# $(BUILD)/gen/labs.mk (below). A lab may add grader/labs/NN-name/lab.mk for its link flags
# (LIBS_name for the harness, SHIM_LIBS_name for the shim) and PROFILE_name.

LAB_DIRS  := $(sort $(notdir $(wildcard grader/labs/[0-9][0-9]-*)))
LAB_NAMES := $(foreach d,$(LAB_DIRS),$(word 2,$(subst -, ,$(d))))
lab_dir    = $(filter %-$(1),$(LAB_DIRS))
# A lab's grader folder, and every contract on the include path (each lab's name.h).
lab_grader = grader/labs/$(call lab_dir,$(1))
LAB_INCLUDES := $(LAB_DIRS:%=-Igrader/labs/%)
CONTRACTS := $(foreach d,$(LAB_DIRS),$(wildcard grader/labs/$(d)/*.h grader/labs/$(d)/*.cuh))
-include $(wildcard grader/labs/*/lab.mk)

# STUDENT is a path, not code: its raw text (make would expand a $(...) in it) may hold no
# shell or make syntax and no spaces. Folders with such names are graded through
# `make grade-batch`, which copies each submission to a safe path first.
comma := ,
STUDENT_RAW := $(value STUDENT)
ifneq ($(words $(STUDENT_RAW)),1)
$(error STUDENT='$(STUDENT_RAW)' must be one path without spaces (copy the folder to a simple name, or use make grade-batch))
endif
ifneq ($(strip $(foreach c,$$ ' " ` | ; & < > * ?,$(findstring $(c),$(STUDENT_RAW)))),)
$(error STUDENT names a path with shell or make characters in it; copy the folder to a simple name (letters, digits, . _ - /), or use make grade-batch)
endif
# A tree or file that is not there is one error, not a failed check per case of every lab.
ifneq ($(filter grade bench explain profile sanitize,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(STUDENT)),)
$(error STUDENT=$(STUDENT): no such folder or file here. Give the folder that holds your 01-coalescing/ ... 09-sgemm/ folders (the default is labs), or one .cu file with LAB=)
endif
# One file is one lab's: which one is the LAB= it is given (one lab, not a list or none).
ifneq ($(filter %.cu,$(STUDENT)),)
ifneq ($(words $(subst $(comma), ,$(LAB))),1)
$(error STUDENT=$(STUDENT) is one file: say which lab it is with one LAB= (make $(firstword $(filter grade bench explain profile sanitize,$(MAKECMDGOALS))) STUDENT=$(STUDENT) LAB=transpose, or LAB=06))
endif
endif
endif
STUDENT_TAG := $(subst /,_,$(patsubst %/,%,$(STUDENT)))
# STUDENT is a tree laid out like labs/, or one .cu file (a ladder rung: give LAB= too).
student_src = $(if $(filter %.cu,$(STUDENT)),$(STUDENT),$(STUDENT)/$(call lab_dir,$(1))/$(1).cu)
# The same file as a tree and a path inside it (the compile sandbox copies only that file, and
# only when it is a regular file reached through real folders).
student_tree = $(if $(filter %.cu,$(STUDENT)),$(patsubst %/,%,$(dir $(STUDENT))),$(STUDENT))
student_rel = $(if $(filter %.cu,$(STUDENT)),$(notdir $(STUDENT)),$(call lab_dir,$(1))/$(1).cu)
# The files beside the student's that may compile with it, their own helpers
# (grader/sandbox/helper_files.h: what the lab file includes, copied into the compile sandbox by
# sandbox-run): a change to one builds the lab again. A name make cannot hold (a space) is left
# out here, and refused by sandbox-run if the file includes it.
helper_globs := *.h *.cuh *.hpp *.hh *.inc *.inl *.cu */*.h */*.cuh */*.hpp */*.cu
student_helpers = $(foreach f,$(wildcard $(addprefix $(dir $(call student_src,$(1))),$(helper_globs))),$(if $(wildcard $(f)),$(f)))
STUDENT_OBJS := $(BUILD)/$(MODE)/$(STUDENT_TAG)
DRIVER      := $(BUILD)/host/grade-driver

# The reference of a lab: solutions/NN-name/name.cu, or, in a student kit (make dist: no
# solution sources), the object built from it: prebuilt/gpu/NN-name/name.o (a fat binary) or
# prebuilt/emu/NN-name/name.o (for the emulator). grader/dist/check-prebuilt.sh checks that
# this machine's compilers can use them, and says what to install when they cannot.
STUDENT_KIT := $(if $(wildcard prebuilt/BUILDINFO),1)
KIT_SAYS = this is a student kit: the reference solutions are in it as prebuilt objects only (prebuilt/), without their sources or the ladder rungs
ifdef STUDENT_KIT
ifneq ($(filter $(abspath solutions) $(abspath solutions)/%,$(abspath $(STUDENT))),)
$(error STUDENT=$(STUDENT): $(KIT_SAYS). make grade grades your labs against the prebuilt reference)
endif
endif
ref_src = $(wildcard solutions/$(call lab_dir,$(1))/$(1).cu)
ref_input = $(or $(call ref_src,$(1)),prebuilt/$(2)/$(call lab_dir,$(1))/$(1).o)
# Non-empty when the student's file for lab $(1) is the reference's source itself.
is_ref = $(if $(call ref_src,$(1)),$(filter $(call ref_src,$(1)),$(call student_src,$(1))))

# ------------------------------------------------------------------------------------------
# Host-only C: shared by the driver, the runners and the unit tests

HOST_COMMON := util rng compare stats json text device_info sizing gpu_profiles
# The sandbox, one file per piece of its policy (grader/sandbox/README.md)
SANDBOX_PIECES := sandbox policy limits namespaces landlock
HOST_GRADER := wire/records wire/check_line run/hidden_size wire/child plan/config decide/verdict decide/speed_verdict plan/lab_select build/manifest decide/score run/gpu_neighbours \
               wire/stop plan/grade_model $(SANDBOX_PIECES:%=sandbox/%) feedback/estimate feedback/fault_rerun \
               feedback/emu_harness feedback/where
# The harnesses' alone: parallel (threads, for their CPU answers).
RUNNER_HOST_OBJS := $(HOST_COMMON:%=$(BUILD)/host/common/%.o) $(BUILD)/host/common/parallel.o \
    $(BUILD)/host/grader/wire/records.o $(BUILD)/host/grader/wire/check_line.o \
    $(BUILD)/host/grader/run/hidden_size.o $(SANDBOX_PIECES:%=$(BUILD)/host/grader/sandbox/%.o)
HOST_OBJS   := $(HOST_COMMON:%=$(BUILD)/host/common/%.o) $(HOST_GRADER:%=$(BUILD)/host/grader/%.o)
TABLE_OBJS  := $(LAB_DIRS:%=$(BUILD)/host/grader/labs/%/table.o)

$(BUILD)/host/%.o: %.c $(wildcard common/*.h grader/*.h grader/*/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(CFLAGS) -Igrader -c $< -o $@

$(BUILD)/host/labs_registry.c: Makefile $(wildcard grader/labs/*)
	@mkdir -p $(@D)
	@{ echo '/* generated by the Makefile from the lab directories: do not edit */'; \
	   echo '#include "lab.h"'; \
	   for n in $(LAB_NAMES); do echo "extern const lab_info lab_$$n;"; done; \
	   echo 'const lab_info *const all_labs[] = {'; \
	   for n in $(LAB_NAMES); do echo "    &lab_$$n,"; done; \
	   echo '};'; \
	   echo 'const int n_all_labs = sizeof all_labs / sizeof all_labs[0];'; } > $@

# The driver's report (grader/report/): the terminal table and results.json
REPORT_OBJS := $(BUILD)/host/grader/report/terminal.o $(BUILD)/host/grader/report/results_json.o \
               $(BUILD)/host/grader/report/shown.o
# The driver: its main and grading loop, and its pieces (grader/run/driver.h)
DRIVER_OBJS := $(addprefix $(BUILD)/host/grader/,run/driver.o run/harnesses.o run/schedule.o \
               run/built.o run/bench.o tools/bench_table.o)
$(DRIVER): $(DRIVER_OBJS) $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(TABLE_OBJS) \
          $(REPORT_OBJS) $(BUILD)/host/common/json_read.o
	$(Q_LINK)$(CC) $(CFLAGS) $^ -lm -o $@

$(BUILD)/host/labs_registry.o: $(BUILD)/host/labs_registry.c
	$(Q_CC)$(CC) $(CFLAGS) -Igrader -c $< -o $@

# The compile sandbox (grader/sandbox/sandbox_run.c, with the sandbox's pieces): trusted, host-only.
SANDBOX_RUN := $(BUILD)/host/sandbox-run
SANDBOX_SRC := $(SANDBOX_PIECES:%=grader/sandbox/%.c)
$(SANDBOX_RUN): grader/sandbox/sandbox_run.c $(SANDBOX_SRC) grader/sandbox/helper_files.c grader/sandbox/helper_files.h grader/sandbox/sandbox.h grader/sandbox/pieces.h common/text.c common/text.h common/util.c
	@mkdir -p $(@D)
	$(Q_LINK)$(CC) $(CFLAGS) grader/sandbox/sandbox_run.c $(SANDBOX_SRC) grader/sandbox/helper_files.c common/text.c common/util.c -o $@

# What the build derives from the lab tables (grader/build/lab_manifest.c): the make variables above,
# and lab_manifest.h (entry indices, harness_call's formats, the shims' calls, a static check of
# each contract's prototype) for every problem.cu and shim. A file is rewritten only when its
# text changes, so that a table's new hint rebuilds no CUDA object; so every make runs this
# rule again, and makes running at once in one checkout (a batch's Slurm array tasks) each
# write a temporary file of their own (the shell's pid) and rename it into place.
MANIFEST := $(BUILD)/host/lab-manifest
GEN := $(BUILD)/gen
MANIFEST_H := $(GEN)/lab_manifest.h
$(MANIFEST): grader/build/lab_manifest.c $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(TABLE_OBJS)
	$(Q_LINK)$(CC) $(CFLAGS) -Igrader $^ -lm -o $@
$(GEN)/labs.mk $(MANIFEST_H): $(GEN)/%: $(MANIFEST)
	@mkdir -p $(@D)
	@t=$@.tmp.$$$$; $(MANIFEST) $(if $(filter %.mk,$@),mk,header) > $$t && { cmp -s $$t $@ && rm -f $$t || mv -f $$t $@; }
ifneq ($(filter-out clean help,$(or $(MAKECMDGOALS),all)),)
include $(GEN)/labs.mk
endif

# $(call sandboxed_build,LAB,OBJECT): sandbox-run with the student's file of LAB, the public
# headers (the lab's contract, common/check.h) and the build scripts; the vetted object comes
# back as OBJECT, and the copy of the file it was compiled from as source.cu beside it (the only
# file make explain and the WHERE hints quote the student's lines from). The caller adds the
# lab's tools and the command. Hidden wherever they sit
# (a checkout under /usr/local/src or /opt, a toolkit inside the checkout): the checkout, the
# solutions, the build, the grading output, the student's own tree (its file is copied in)
# and what a batch names (GRADER_HIDE: its output and submissions); /proc is closed.
PUBLIC_HEADERS := common/check.h
# The workbook's own solutions (a reference, or a ladder rung, STUDENT=solutions/NN-name/steps/K-x.cu)
# share code through headers in their lab's folder (solutions/NN-name/*.cuh: the SGEMM kernel of
# the reference and rungs 6 and 7, lab 07's rungs' launches ...); a file under solutions/ gets
# them in its sandbox too. A student's file, anywhere else, never sees them.
is_solution = $(filter $(abspath solutions)/%,$(abspath $(call student_src,$(1))))
solution_headers = $(if $(call is_solution,$(1)),$(wildcard solutions/$(call lab_dir,$(1))/*.cuh))
sandbox_hidden = $(CURDIR) $(abspath solutions $(BUILD) $(GRADE_DIR)) $(abspath $(call student_tree,$(1))) $(GRADER_HIDE)
sandboxed_build = $(SANDBOX_RUN) --work $(dir $(2))sandbox --student $(call student_tree,$(1)) $(call student_rel,$(1)) \
    $(foreach h,$(wildcard $(call lab_grader,$(1))/*.h $(call lab_grader,$(1))/*.cuh) $(PUBLIC_HEADERS) $(call solution_headers,$(1)),--copy $(h) include/$(notdir $(h))) \
    --copy grader/build/vet.sh vet.sh --copy grader/build/build_student.sh build_student.sh --get student.o $(2) \
    --no-proc $(foreach d,$(call sandbox_hidden,$(1)),--hide '$(d)') \
    --get $(call student_rel,$(1)) $(dir $(2))source.cu \
    $(if $(NVCC_PREPEND_FLAGS),--env 'NVCC_PREPEND_FLAGS=$(NVCC_PREPEND_FLAGS)') \
    $(if $(SANDBOX_WALL),--wall $(SANDBOX_WALL)) $(if $(SANDBOX_MEM_MIB),--mem $(SANDBOX_MEM_MIB))

# ------------------------------------------------------------------------------------------
# GPU builds (nvcc). Per lab, three pieces, so that student code never shares a process with
# the grader (see grader/README.md, "How grading works"):
#   $(LABB)/<lab>/harness       TRUSTED: buffers, inputs, verification, timing (no student code)
#   $(LABB)/<lab>/reference.so  the reference behind the lab's shim (grader/labs/NN-name/)
#   $(STUDENT_OBJS)/<lab>/student.so the student's vetted object behind the same shim
# and one worker program, $(BUILD)/<mode>/worker, that sandboxes itself and loads a .so.

GPU := $(BUILD)/gpu
# The harness's side of its workers (grader/run/worker_trusted.h), one file per concern.
WORKER_TRUSTED := worker_lifecycle_trusted worker_buffers_trusted worker_protocol_trusted worker_idle_trusted
# The harness (grader/run/harness_parts.h), one file per concern: main and one check, the labs'
# hooks and the records, a speed check, make bench.
HARNESS_PARTS := harness harness_emit harness_speed harness_bench
LABB = $(BUILD)/$(MODE)/.grader
PIC := -Xcompiler -fPIC
CUDART_SHARED = -cudart shared -Xlinker -rpath=$(CUDA_HOME)/lib64
# The driver API (virtual-memory allocations shared by file descriptor); the toolkit's stub
# satisfies the link where no driver is installed.
LIBCUDA = -L$(CUDA_HOME)/lib64/stubs -lcuda
GPU_COMMON := $(addprefix $(GPU)/common/,check.o device.o buffer.o timing.o devcheck.o) \
              $(HARNESS_PARTS:%=$(GPU)/grader/run/%.o) $(WORKER_TRUSTED:%=$(GPU)/grader/run/%.o) \
              $(GPU)/grader/run/profile_trusted.o $(GPU)/grader/run/timeline_trusted.o
# make profile's timeline: the harness exports the runtime's copy and launch functions that
# grader/run/timeline_trusted.c wraps, so an implementation loaded into it calls those first.
TIMELINE_EXPORT := -Xlinker --dynamic-list=grader/run/timeline.dynlist
GPU_SHIM := $(GPU)/pic/grader/run/worker_loop_untrusted.o

# cuobjdump reads the machine code of a student's object (forbidden instructions). Toolkits
# without it (some CI images) get it from its PyPI wheel; where neither works, a lab that
# forbids instructions fails closed: the student object is rejected with the reason.
CUOBJDUMP := $(firstword $(wildcard $(CUDA_HOME)/bin/cuobjdump) $(BUILD)/tools/cuobjdump)
$(BUILD)/tools/cuobjdump:
	@mkdir -p $(@D)/wheel
	@echo "  FETCH   cuobjdump and nvdisasm (not in this CUDA toolkit): their PyPI wheels"
	@python3 -m pip download -q --no-deps -d $(@D)/wheel nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm >/dev/null 2>&1 && \
	    cd $(@D)/wheel && for w in *.whl; do unzip -q -o $$w; done && \
	    cp nvidia/cu*/bin/nvdisasm ../nvdisasm && cp nvidia/cu*/bin/cuobjdump ../cuobjdump && \
	    chmod 0755 ../nvdisasm ../cuobjdump || \
	    { echo "warning: cuobjdump could not be installed; labs that forbid instructions will reject student files" >&2; exit 0; }

$(GPU)/%.o: %.cu $(wildcard common/*.h grader/*.h grader/*/*.h) $(CONTRACTS) | toolkit
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(NVFLAGS) -Igrader -c $< -o $@

$(GPU)/pic/%.o: %.cu $(wildcard grader/*.h grader/*/*.h) $(CONTRACTS) | toolkit
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(NVFLAGS) $(PIC) -Igrader -c $< -o $@

$(GPU)/grader/run/timeline_trusted.o: grader/run/timeline_trusted.c grader/run/timeline_trusted.h | toolkit
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(CFLAGS) -I$(CUDA_HOME)/include -c $< -o $@

# The worker program: its main and the filter it installs before it loads any code.
WORKER_SRCS := grader/run/worker_untrusted.c grader/sandbox/seccomp.c
$(BUILD)/gpu/worker: $(WORKER_SRCS) grader/sandbox/seccomp.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) -O2 -g -Wall -Wextra $(WORKER_SRCS) -ldl -o $@

.SECONDARY:
# A student's file that is gone fails the build: the pattern rule above would not apply for want
# of its source, and an object of an earlier build would be graded in its place. (A file that is
# there but not a regular file, a link or a pipe, goes on to the compile sandbox, which refuses
# it and says why.)
STUDENT_SRC_CHECKS := $(LAB_NAMES:%=student-src-%)
.PHONY: $(STUDENT_SRC_CHECKS)
$(STUDENT_SRC_CHECKS): student-src-%:
	@[ -e "$(call student_src,$*)" ] || [ -L "$(call student_src,$*)" ] || { echo "error: your file was not found: expected it at $(call student_src,$*)" >&2; exit 1; }

# The problems and shims include lab_manifest.h.
$(foreach d,$(LAB_DIRS),$(GPU)/grader/labs/$(d)/problem.o $(GPU)/pic/grader/labs/$(d)/shim_untrusted.o): $(MANIFEST_H)

# ------------------------------------------------------------------------------------------
# CPU-emulator builds (common/emu): the same sources compiled as C++ for the CPU, with the
# emulator's bounds, barrier and race checks. Only correctness runs there. The harness and
# the worker carry the emulator's runtime and export its CUDA API, and nothing else, to the .so
# they load (EMU_EXPORT_FLAGS, common/emu/emu.mk); a .so that names the engine's internals is
# refused at its link (common/emu/check-internal.sh).

ifneq ($(wildcard common/emu/emu.mk),)
include common/emu/emu.mk
EMUB := $(BUILD)/emu
EMU_COMMON := $(addprefix $(EMUB)/common/,check.o device.o buffer.o timing.o devcheck.o) \
              $(HARNESS_PARTS:%=$(EMUB)/grader/run/%.o) $(WORKER_TRUSTED:%=$(EMUB)/grader/run/%.o) \
              $(EMUB)/grader/run/profile_trusted.o
EMU_HOST_OBJS := $(HOST_COMMON:%=$(EMUB)/host/common/%.o) $(EMUB)/host/common/parallel.o \
    $(EMUB)/host/grader/wire/records.o $(EMUB)/host/grader/wire/check_line.o \
    $(EMUB)/host/grader/run/hidden_size.o $(SANDBOX_PIECES:%=$(EMUB)/host/grader/sandbox/%.o)
EMU_INCLUDES := -Icommon $(LAB_INCLUDES) -Igrader -I$(GEN)
$(foreach d,$(LAB_DIRS),$(EMUB)/grader/labs/$(d)/problem.o $(EMUB)/pic/grader/labs/$(d)/shim_untrusted.o): $(MANIFEST_H)
EMU_EXPORT = $(EMU_EXPORT_FLAGS)
# Libraries only the GPU build needs (cuBLAS is fenced off with CUDA_EMU in the sources).
$(foreach n,$(LAB_NAMES),$(eval EMU_LIBS_$(n) ?= $(filter-out -lcublas -lcublasLt,$(LIBS_$(n)))))

$(EMUB)/host/%.o: %.c $(wildcard common/*.h grader/*.h grader/*/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(EMU_CC) $(EMU_CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Igrader -c $< -o $@

# The harness's objects are the grader's own code: those that define no kernel are compiled
# without the emulator's per-access checks (emu-nvcc --emu-trusted-host), which its CPU
# reference answers and verification loops do not need.
$(EMUB)/common/%.o: common/%.cu $(EMU_NVCC) $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) --emu-trusted-host)

$(EMUB)/grader/%.o: grader/%.cu $(EMU_NVCC) $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) --emu-trusted-host)

$(EMUB)/pic/%.o: %.cu $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) -fPIC)

EMU_WORKER_OBJS := $(WORKER_SRCS:%.c=$(EMUB)/host/%.o)
$(EMUB)/worker-emu: $(EMU_WORKER_OBJS) $(EMU_LIB)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(EMU_WORKER_OBJS) $(EMU_EXPORT) $(EMU_LDLIBS) -ldl -lpthread -o $@

endif

# ------------------------------------------------------------------------------------------
# One lab's pieces, in either mode: one template, $(call lab_rules,MODE,NAME), instantiated
# for every lab in each mode below, and what differs between the modes, named once:
#   B_mode, HOSTB_mode   the mode's build folder, and where the lab's table.o is compiled
#   SHIM_mode            the workers' command loop (grader/run/worker_loop_untrusted.cu), compiled
#   CU_DEPS_mode         what compiling CUDA C needs besides the source (last: it may hold
#                        an order-only part)
#   compile_pic_mode     $(call ...,SRC,OUT): a .cu file to a position-independent object
#   link_harness_mode    $(call ...,NAME): the harness from the rule's objects
#   link_so_mode         $(call ...,NAME,OBJECTS): a shared object behind the lab's shim
#   use_prebuilt_mode    a student kit's prebuilt reference object ($<), checked, copied
#   student_*_mode       the student's compile in the sandbox: its extra prerequisites (deps,
#                        and order: order-only ones), sandbox arguments, the compiler
#                        command, the instruction checks
B_gpu = $(GPU)
B_emu = $(EMUB)
HOSTB_gpu = $(BUILD)/host
HOSTB_emu = $(EMUB)/host
SHIM_gpu = $(GPU_SHIM)
SHIM_emu = $(EMUB)/pic/grader/run/worker_loop_untrusted.o
CU_DEPS_gpu = | toolkit
CU_DEPS_emu = $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
HARNESS_DEPS_gpu = $(GPU_COMMON) $(RUNNER_HOST_OBJS) grader/run/timeline.dynlist
HARNESS_DEPS_emu = $(EMU_COMMON) $(EMU_HOST_OBJS) $(EMU_LIB)
compile_pic_gpu = $(Q_NVCC)$(NVCC) $(NVFLAGS) $(PIC) -c $(1) -o $(2)
compile_pic_emu = $(Q_EMU)$(call emu_compile_cu,$(1),$(2),$(EMU_INCLUDES) -fPIC)
link_harness_gpu = $(Q_LINK)$(NVCC) $(ARCH_FLAGS) $(filter %.o,$^) $(LIBS_$(1)) $(CUDART_SHARED) $(LIBCUDA) $(TIMELINE_EXPORT) -ldl -lpthread -o $@
link_harness_emu = $(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(filter %.o,$^) $(EMU_EXPORT) $(EMU_LDLIBS) $(EMU_LIBS_$(1)) -ldl -lpthread -o $@
link_so_gpu = $(Q_LINK)$(NVCC) -shared $(ARCH_FLAGS) $(2) $(SHIM_LIBS_$(1)) $(CUDART_SHARED) $(LIBCUDA) -o $@
link_so_emu = $(Q_LINK)$(EMU_CXX) -shared $(2) $(SHIM_LIBS_EMU_$(1)) -o $@ && \
    { common/emu/check-internal.sh $(EMU_INTERNAL) $@ || { rm -f $@; exit 1; }; }
use_prebuilt_gpu = NVCC=$(NVCC) grader/dist/check-prebuilt.sh gpu $< && cp $< $@
use_prebuilt_emu = grader/dist/check-prebuilt.sh emu $< && cp $< $@
# A prebuilt reference for the emulator is compiled code of another g++: the worker is linked
# against it once (every symbol it needs must resolve), so that a g++ that cannot use it says
# so here. (The GPU's prebuilt object is checked by check-prebuilt.sh gpu alone.)
ref_so_deps_emu = $(if $(call ref_src,$(1)),,$(EMU_WORKER_OBJS) $(EMU_LIB))
ref_so_check_emu = $(if $(call ref_src,$(1)),,@EMU_CXX='$(EMU_CXX)' grader/dist/check-prebuilt.sh emu-link $(call ref_input,$(1),emu) $@ \
    $(EMU_LDFLAGS) $(EMU_WORKER_OBJS) $(EMU_EXPORT) $(EMU_LDLIBS) -ldl -lpthread)
# The machine-code (SASS) and PTX checks are the GPU build's alone, and so is cuobjdump.
student_sass_gpu = $(FORBID_SASS_$(1))
student_ptx_gpu = $(FORBID_PTX_$(1))
student_deps_gpu = $(if $(FORBID_SASS_$(1)),$(CUOBJDUMP))
student_order_gpu = toolkit
student_deps_emu = $(EMU_REWRITE) $(EMU_LIB) $(EMU_PCH)
student_vet_env_gpu = CUOBJDUMP=$(CUOBJDUMP)
student_sandbox_gpu = --env CUOBJDUMP=$(abspath $(CUOBJDUMP)) --env NVDISASM_PATH=$(abspath $(dir $(CUOBJDUMP))) \
    $(if $(filter $(abspath $(BUILD))/%,$(abspath $(CUOBJDUMP))),--visible $(abspath $(dir $(CUOBJDUMP)))) \
    --env "PTX_COMPILE=$(NVCC) $(filter-out $(ARCH_FLAGS) $(LAB_INCLUDES) -Icommon -I$(BUILD)/gen,$(NVFLAGS)) -Iinclude -arch=compute_90"
# (the emulator's compile needs its public headers, their precompiled prelude, emu-nvcc and the
# rewriter; not its sources nor its library)
student_sandbox_emu = --visible $(abspath $(EMU_DIR))/include --visible $(abspath $(EMU_BUILD))/pch \
    --visible $(abspath $(EMU_NVCC)) --visible $(abspath $(EMU_REWRITE)) \
    --env EMU_BUILD=$(abspath $(EMU_BUILD)) --env EMU_CXX=$(EMU_CXX) --env EMU_CC=$(EMU_CC)
student_cc_gpu = $(NVCC) $(filter-out $(LAB_INCLUDES) -Icommon -I$(BUILD)/gen,$(NVFLAGS)) -Iinclude $(PIC)
student_cc_emu = $(abspath $(EMU_NVCC)) -Iinclude -fPIC

# $(call lab_rules,MODE,NAME). Paths built from STUDENT stay references ($$) until make reads
# the rule, so that no character of a folder's name is read as make syntax.
#   harness        TRUSTED: buffers, inputs, verification, timing (no student code)
#   the reference  compiled like any implementation (or its prebuilt object), behind the
#                  lab's shim: reference.so
#   student.so     the student's object behind the same shim. The object is compiled and
#                  vetted (grader/build/vet.sh) inside the compile sandbox (grader/sandbox/sandbox_run.c:
#                  the student's file and the public headers, the toolkit and the system,
#                  nothing of the checkout; bounded in time, memory, files and processes;
#                  its size capped by grader/build/build_student.sh), before anything runs it, and
#                  kept only inside the .so: build/ holds one copy of it. When the student's
#                  file is the reference's own (STUDENT=solutions: make test, make bench),
#                  the reference's object, compiled with the same flags, is used. A file that
#                  is gone fails it (student-src-NAME, above).
#                  Beside it, source.cu: the copy of the file that was compiled (make explain
#                  and the WHERE hints quote the student's lines from it, and from no other).
define lab_rules
$(B_$1)/.grader/$2/harness: $(HARNESS_DEPS_$1) $(B_$1)/$(call lab_grader,$2)/problem.o $(HOSTB_$1)/$(call lab_grader,$2)/table.o
	@mkdir -p $$(@D)
	$$(call link_harness_$1,$2)

$(B_$1)/pic/solutions/$2.o: $(call ref_input,$2,$1) $(wildcard solutions/$(call lab_dir,$2)/*.cuh) $(CONTRACTS) $(CU_DEPS_$1)
	@mkdir -p $$(@D)
	$$(if $$(filter %.o,$$<),@echo "  PREBUILT $$<"; $$(use_prebuilt_$1),$$(call compile_pic_$1,$$<,$$@))

$(B_$1)/.grader/$2/reference.so: $(SHIM_$1) $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o $(B_$1)/pic/solutions/$2.o $(call ref_so_deps_$1,$2)
	@mkdir -p $$(@D)
	$$(call link_so_$1,$2,$$(filter %/worker_loop_untrusted.o %/shim_untrusted.o %/solutions/$2.o,$$^))
	$$(call ref_so_check_$1,$2)

$(B_$1)/$$(STUDENT_TAG)/$2/student.so: $$(call student_src,$2) $$(call student_helpers,$2) $(SHIM_$1) $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o $$(if $$(call is_ref,$2),$(B_$1)/pic/solutions/$2.o) $(CONTRACTS) $$(call solution_headers,$2) grader/build/vet.sh grader/build/build_student.sh $(SANDBOX_RUN) $(call student_deps_$1,$2) | student-src-$2 $(student_order_$1)
	@mkdir -p $$(@D)
	@rm -f $$@ $$@.o $$@.o.raw $$(@D)/source.cu
	$$(if $$(call is_ref,$2),$$(Q_VET)cp $$(call student_src,$2) $$(@D)/source.cu && cp $(B_$1)/pic/solutions/$2.o $$@.o.raw && $$(student_vet_env_$1) grader/build/vet.sh $2 $$@.o.raw $$@.o "$$(ENTRY_$2)" "$$(FORBID_$2)" "$$(call student_sass_$1,$2)"; s=$$$$?; rm -f $$@.o.raw; exit $$$$s,\
	$$(Q_NVCC)CUDA_HOME=$$(CUDA_HOME) $$(call sandboxed_build,$2,$$@.o) $$(student_sandbox_$1) \
	    -- sh ./build_student.sh $2 $$(call student_rel,$2) student.o "$$(ENTRY_$2)" "$$(FORBID_$2)" "$$(call student_sass_$1,$2)" "$$(call student_ptx_$1,$2)" \
	    $$(student_cc_$1))
	$$(call link_so_$1,$2,$(SHIM_$1) $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o $$@.o); s=$$$$?; rm -f $$@.o; exit $$$$s
endef

# $(call steps_rules,NAME): the lab's ladder rungs (solutions/NN-name/steps/*.cu) for make
# bench, implementations like any other, with the headers they share with the reference
# (solutions/NN-name/*.cuh); the GPU's alone.
define steps_rules
$(GPU)/pic/steps/$1/%.o: solutions/$(call lab_dir,$1)/steps/%.cu $(CONTRACTS) $(wildcard solutions/$(call lab_dir,$1)/*.cuh) | toolkit
	@mkdir -p $$(@D)
	$$(call compile_pic_gpu,-Isolutions/$(call lab_dir,$1) $$<,$$@)

$(GPU)/steps/$1/%.so: $(GPU_SHIM) $(GPU)/pic/$(call lab_grader,$1)/shim_untrusted.o $(GPU)/pic/steps/$1/%.o
	@mkdir -p $$(@D)
	$$(call link_so_gpu,$1,$$^)
endef

BUILD_MODES := gpu $(if $(EMUB),emu)
$(foreach m,$(BUILD_MODES),$(foreach n,$(LAB_NAMES),$(eval $(call lab_rules,$(m),$(n)))))
$(foreach n,$(LAB_NAMES),$(eval $(call steps_rules,$(n))))

# Everything one lab needs to be graded, in this mode. The worker program under emulation
# carries the emulator.
WORKER = $(if $(filter emu,$(MODE)),$(BUILD)/emu/worker-emu,$(BUILD)/gpu/worker)
lab_pieces = $(LABB)/$(1)/harness $(LABB)/$(1)/reference.so $(STUDENT_OBJS)/$(1)/student.so $(WORKER)
# What every lab shares (make grade builds it before it says the grader is built; the labs'
# own builds run beside it): the common objects, the shims' dispatch, the worker, the compile
# sandbox, the lab manifest and, where a lab reads machine code, cuobjdump.
GRADER_PIECES_gpu = $(GPU_COMMON) $(RUNNER_HOST_OBJS) $(GPU_SHIM) $(BUILD)/gpu/worker \
    $(if $(strip $(foreach n,$(LAB_NAMES),$(FORBID_SASS_$(n)))),$(CUOBJDUMP))
GRADER_PIECES_emu = $(EMU_REWRITE) $(EMU_LIB) $(EMU_COMMON) $(EMU_HOST_OBJS) $(EMUB)/pic/grader/run/worker_loop_untrusted.o \
    $(EMUB)/worker-emu $(EMU_WORKER_OBJS)

# ------------------------------------------------------------------------------------------
# Verbs

.PHONY: all runners grade grade-batch bench bench-grading roofline test clean toolkit help doctor profile explain sanitize new-lab docs-gen

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
	@TOOLKIT_STAMP=$(BUILD)/gen/toolkit.ok grader/build/check-toolkit.sh $(NVCC) --quiet
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

# Build, then grade (grader/build/grade.mk): this make builds what LAB= selects (a line per lab as it
# finishes; a lab whose build fails is recorded as such, and the others go on), then runs the
# driver once, told where the build left its status per lab (--built). The driver grades; it
# runs neither make nor a shell. Under a GPU its WHERE line counts the emulator's build of the
# lab (--where-*), which this make built beside the GPU's.
include grader/build/grade.mk
# With a GPU, make all builds the CPU emulator's copy of every lab too (the WHERE line's count:
# WHERE_B), so that neither a first make grade nor a batch's first student waits for it.
all: $(foreach n,$(LAB_NAMES),$(call where_pieces,$(n)))

grade: $$(grade_build)
	@$(if $(grade_ok),grader/build/lab_status.sh end $(GRADE_BUILT))
	@mkdir -p $(GRADE_DIR)
	@exec $(DRIVER) --labdir $(LABB) --student-dir $(STUDENT_OBJS) --worker $(WORKER) --mode $(MODE) \
	    --lab "$(LAB)" --seed "$(SEED)" --student "$(STUDENT)" --isolation $(GRADER_ISOLATION) \
	    --student-files '$(foreach n,$(LAB_NAMES),$(call student_src,$(n)))' \
	    $(if $(filter 1,$(GRADER_REQUIRE_ISOLATION)),--require-isolation) \
	    $(foreach d,$(GRADER_HIDE),--hide '$(d)') \
	    $(if $(filter 1,$(GRADE_WHERE)),--where-budget $(GRADE_WHERE_S) \
	        $(if $(WHERE_B),--where-labdir $(WHERE_B)/.grader --where-student-dir $(WHERE_B)/$(STUDENT_TAG) \
	            --where-worker $(WHERE_B)/worker-emu)) \
	    $(if $(GRADE_FAULT_RERUN),--fault-rerun '$(GRADE_FAULT_RERUN)') \
	    $(if $(grade_ok),--built $(GRADE_BUILT)) --paths '$(GRADE_PATHS)' --json $(GRADE_DIR)/results.json --logs $(GRADE_DIR)

grade-batch: $(DRIVER)
	@$(BATCH_RUN)

# make bench-grading: the time grading takes, per lab and whole (tests/gpu/bench-grading.sh).
bench-grading:
	@OUT=$(BUILD)/bench-grading BUILD=$(BUILD) tests/gpu/bench-grading.sh

# make bench: per lab, the skeleton (or STUDENT's file), every ladder rung in
# solutions/NN-name/steps/, the reference and the ceiling, timed side by side.
# The file in labs/ is "skeleton" while it is byte for byte the workbook's (labs/skeletons.sha256),
# "yours" once edited; another tree's is "yours".
is_skeleton = $(and $(filter labs,$(STUDENT)),$(shell grep -F ' $(call lab_dir,$(1))/$(1).cu' labs/skeletons.sha256 2>/dev/null | (cd labs && sha256sum -c --status 2>/dev/null) && echo yes))
bench_variants = $(if $(call is_skeleton,$(1)),skeleton,yours)=$(STUDENT_OBJS)/$(1)/student.so $(foreach f,$(call steps_of,$(1)),steps/$(basename $(notdir $(f)))=$(GPU)/steps/$(1)/$(basename $(notdir $(f))).so)

# (a tree not yours, or no GPU: nothing is built, and the recipe says why)
bench_runs = $(and $(own_tree),$(filter gpu,$(MODE)))
bench: $$(if $$(bench_runs),$$(grade_build),$$(DRIVER))
	@$(call need_own_tree,the grader (CUDA events time it there),To time that tree's code beside the reference in the sandbox: make grade STUDENT=$(STUDENT); or read it and copy it into your labs/ first.)
ifneq ($(MODE),gpu)
	@echo "make bench times kernels on a GPU, and there is none here (nvidia-smi lists none)." >&2
	@exit 2
endif
	@$(if $(grade_ok),grader/build/lab_status.sh end $(GRADE_BUILT))
	@mkdir -p $(BUILD)/bench && rm -f $(BUILD)/bench/*.tsv
ifneq ($(STUDENT_KIT),)
	@echo "The ladder rungs are not in this student kit: the table times your code, the reference and the ceiling."
endif
	@set -o pipefail; $(DRIVER) --bench --labdir $(LABB) --student-dir $(STUDENT_OBJS) --worker $(WORKER) \
	    --mode gpu --lab "$(LAB)" --student "$(STUDENT)" --logs $(BUILD)/bench \
	    --student-files '$(foreach n,$(LAB_NAMES),$(call student_src,$(n)))' \
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
    $(if $(call ref_src,$(1)),--ref-source $(call ref_src,$(1))) $(foreach d,$(GRADER_HIDE),--hide '$(d)')

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

# A lab is three folders; the build finds it by them (grader/build/new-lab.sh), and what lists
# the labs for people is derived from them (grader/build/docs_gen.py; make test-docs checks it).
new-lab:
	@grader/build/new-lab.sh '$(NAME)'
	@grader/build/docs_gen.py

docs-gen:
	@grader/build/docs_gen.py

doctor: $(SANDBOX_RUN)
	@SANDBOX_RUN=$(SANDBOX_RUN) BUILD=$(BUILD) grader/tools/doctor.sh

clean:
	rm -rf $(BUILD)

help:
	@awk 'NR > 2 && !/^#/ {exit} NR > 2 {sub(/^# ?/, ""); print}' Makefile

include grader/batch/batch.mk
include grader/dist/dist.mk
include tests/tests.mk
-include slides/slides.mk
