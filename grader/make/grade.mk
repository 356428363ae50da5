# grader/make/grade.mk - make grade and make bench: make builds, then the driver grades.
#
# One make builds everything the run needs for the labs LAB= selects, side by side (-j, the
# machine's cores, unless make was given its own -j): the grader's shared pieces, then per lab
# its harness and reference, the student's object (compiled and vetted in the compile sandbox)
# and, for make grade on a GPU, the CPU emulator's build of the lab that the WHERE line counts
# (GRADE_WHERE=0: none); for make bench the ladder rungs. A lab whose build fails does not stop
# the others: its steps run through grader/make/lab_step.sh, which keeps their output in the lab's
# log and records a failure instead of stopping make, and grader/make/lab_status.sh writes each
# lab's status as it finishes, with a line on the terminal. Then the recipe runs the driver,
# once, told where the statuses are (--built): it grades, and runs neither make nor a shell
# (the WHERE count is the lab's emulated harness, run by the driver in the sandbox as grading
# runs it). `make -n grade` prints the build and that one call.
#
# Included by the Makefile before its verbs (make grade and make bench are written there).

# This run's own build folder (make's process id: two runs side by side never share one), read
# and removed by the driver.
RUN_ID := $(shell echo $$PPID)
GRADE_BUILT = $(if $(filter bench,$(MAKECMDGOALS)),$(BUILD)/bench,$(GRADE_DIR))/.build.$(RUN_ID)

# The labs LAB= selects, as the driver reads LAB= (grader/plan/lab_select.c, through the lab
# manifest program, which make has built before it reads a rule: it writes labs.mk); "!" when
# LAB= is wrong: nothing is built, and the driver says what is wrong.
# (Read once a make: kept from its first good answer, asked again while there is none, as
# before the manifest is built.)
GRADE_LABS = $(or $(grade_labs_kept),$(call grade_labs_read))
grade_labs_read = $(eval grade_labs_now := $(or $(shell $(MANIFEST) select "$(LAB)" 2>/dev/null || echo !),!))$(if \
    $(filter !,$(grade_labs_now)),,$(eval grade_labs_kept := $(grade_labs_now)))$(grade_labs_now)
GRADE_LAB_NAMES = $(filter-out !,$(GRADE_LABS))
grade_ok = $(if $(filter !,$(GRADE_LABS)),,1)

# Under a GPU, the WHERE line counts the student's code on the CPU emulator: its build of the
# lab (harness, reference, the student's object: compiled in the compile sandbox as every
# student compile is), beside the GPU's. Under the emulator grading's own build is it.
WHERE_B := $(if $(filter gpu,$(MODE)),$(if $(filter 1,$(GRADE_WHERE)),$(if $(EMUB),$(EMUB))))
where_pieces = $(if $(WHERE_B),$(WHERE_B)/.grader/$(1)/harness $(WHERE_B)/.grader/$(1)/problem.so $(WHERE_B)/.grader/$(1)/reference.so \
    $(WHERE_B)/$(STUDENT_TAG)/$(1)/student.so $(WHERE_B)/worker-emu)

# What each lab's status waits for, in this mode (bench: the rungs too).
grade_pieces = $(call lab_pieces,$(1)) $(call where_pieces,$(1)) \
    $(if $(filter bench,$(MAKECMDGOALS)),$(call steps_pieces,$(1)))

ifneq ($(filter grade bench,$(MAKECMDGOALS)),)
# Side by side, unless make was told otherwise.
ifeq ($(filter -j% --jobs%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
# The build's clock starts as make starts (the times grader/make/lab_status.sh prints count
# from here), and a first build says so before make builds the lab manifest it reads (make
# then restarts, with the same process id, and MAKE_RESTARTS set).
ifeq ($(MAKE_RESTARTS),)
$(shell mkdir -p $(GRADE_BUILT) && date +%s.%N >$(GRADE_BUILT)/.t0)
ifeq ($(wildcard $(GEN)/labs.mk),)
$(info Building the grader's own programs first (nothing is built yet; V=1 prints each command))
endif
endif
# (LAB= being wrong, nothing is built and the driver is given no build folder: the clock goes)
ifneq ($(wildcard $(MANIFEST)),)
ifeq ($(grade_ok),)
$(shell rm -rf $(GRADE_BUILT))
endif
endif

# The emulator's flags are asked of emu-nvcc once, here (all six in one run), rather than by the
# first recipe that needs them: a $(shell) in a lab's step would run through
# grader/make/lab_step.sh, whose output goes to the lab's log.
ifneq ($(filter emu,$(MODE))$(WHERE_B),)
$(emu_flags_all)
endif
# A lab's own steps run through grader/make/lab_step.sh: SHELL stays bash (so make reads every recipe
# as it always does), and each line is handed to the script, which runs it with bash.
LAB_STEP := grader/make/lab_step.sh
# $(call lab_steps,MODE,NAME,KIND,STUDENT-KIND,MARK): the lab's own steps (grader/make/lab_step.sh's
# KIND) in that mode: its objects, harness and reference, and the student's object (with the
# check that the student's file is there).
define lab_steps
$(B_$1)/pic/$(call lab_grader,$2)/problem.o $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o \
$(B_$1)/pic/solutions/$2.o $(B_$1)/.grader/$2/problem.so $(B_$1)/.grader/$2/harness $(B_$1)/.grader/$2/reference.so: \
    private .SHELLFLAGS = $(LAB_STEP) $3 $5 $$@ -c
$(B_$1)/$$(STUDENT_TAG)/$2/student.so $(if $(filter $1,$(MODE)),student-src-$2): private .SHELLFLAGS = $(LAB_STEP) $4 $5 $$@ -c
endef
$(foreach n,$(LAB_NAMES),$(eval $(call lab_steps,$(MODE),$(n),grader,student,$(GRADE_BUILT)/$(n))))
ifneq ($(WHERE_B),)
$(foreach n,$(LAB_NAMES),$(eval $(call lab_steps,emu,$(n),where,where,$(GRADE_BUILT)/$(n).where)))
endif
ifneq ($(filter bench,$(MAKECMDGOALS)),)
$(foreach n,$(LAB_NAMES),$(eval $(call steps_pieces,$(n)) $(GPU)/pic/steps/$(n)/%.o: private .SHELLFLAGS = $(LAB_STEP) steps $(GRADE_BUILT)/$(n) $$@ -c))
endif
endif

# The run's build, in the order its lines are printed: the folder and a heading, the grader's
# shared pieces, then each lab as it finishes.
$(GRADE_BUILT)/.begun:
ifeq ($(MODE),emu)
	@echo "No NVIDIA GPU here$(if $(filter 1,$(EMU)), (EMU=1)): checking correctness on the CPU emulator."
endif
	@grader/make/lab_status.sh begin $(GRADE_BUILT) $(words $(GRADE_LAB_NAMES))

$(GRADE_BUILT)/grader.done: $(DRIVER) $(GRADER_PIECES_$(MODE)) $(SANDBOX_RUN) $(MANIFEST_H) \
        $(if $(WHERE_B),$(GRADER_PIECES_emu)) | toolkit $(GRADE_BUILT)/.begun
	@grader/make/lab_status.sh grader $(GRADE_BUILT)

.SECONDEXPANSION:
$(GRADE_BUILT)/%.status: $$(call grade_pieces,$$*) | $(GRADE_BUILT)/grader.done
	@grader/make/lab_status.sh lab $(GRADE_BUILT) $* $(words $(GRADE_LAB_NAMES)) $(LABB)/$*/harness \
	    $(LABB)/$*/reference.so $(STUDENT_OBJS)/$*/student.so

# The driver's command line, written here alone: make grade's recipe runs it (exec), or, given
# GRADE_ARGV=FILE (make grade-batch's keeper: grader/batch/grade_one.c), writes it into FILE,
# each argument ended by a NUL, as the shell reads this same line, and runs nothing: the batch
# then runs the driver itself, with no make or shell around it.
GRADE_DRIVER_CMD = $(DRIVER) --labdir $(LABB) --student-dir $(STUDENT_OBJS) --worker $(WORKER) --mode $(MODE) \
    --lab "$(LAB)" --seed "$(SEED)" --student "$(STUDENT)" --isolation $(GRADER_ISOLATION) \
    $(if $(filter 1,$(GRADER_REQUIRE_ISOLATION)),--require-isolation) \
    $(foreach d,$(GRADER_HIDE) $(STUDENT_CACHE),--hide '$(d)') \
    $(if $(filter 1,$(GRADE_WHERE)),--where-budget $(GRADE_WHERE_S) \
        $(if $(WHERE_B),--where-labdir $(WHERE_B)/.grader --where-student-dir $(WHERE_B)/$(STUDENT_TAG) \
            --where-worker $(WHERE_B)/worker-emu)) \
    $(if $(GRADE_FAULT_RERUN),--fault-rerun '$(GRADE_FAULT_RERUN)') \
    $(if $(grade_ok),--built $(GRADE_BUILT)) --paths '$(GRADE_PATHS)' --json $(GRADE_DIR)/results.json --logs $(GRADE_DIR)

# What make grade and make bench wait for: every selected lab's status (or, LAB= being wrong,
# the driver alone, which says so). Under the emulator the longest steps that everything after
# waits for come first, side by side (make -j starts prerequisites in the order named): the
# rewriter and the precompiled prelude, which every .cu compile needs, and the library's longest
# compile (its first object), which the harness's and the worker's links need; the grader's
# short host compiles then fill the cores beside them (a first make grade waited for the
# library's compile alone, one core idle). Then the selected labs' references, the last lab's
# first: lab 09's (SGEMM's kernels, 4-5 core-seconds) is the build's longest .cu compile, and
# started last, as its lab's turn came, it ran alone at the end of the build, a core idle. (make
# starts a prerequisite only when its walk of them reaches it with its own prerequisites made,
# and the walk waits for a free core at each start: two of the library's next longest compiles
# between the prelude and the references hold it until the last prelude is made.)
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
GRADE_FIRST = $(if $(filter emu,$(MODE)),$(EMU_REWRITE) $(firstword $(EMU_LIB_OBJS)) $(EMU_PCH) \
    $(EMU_BUILD)/tools/exec.o $(EMU_BUILD)/tools/track.o \
    $(foreach n,$(call reverse,$(GRADE_LAB_NAMES)),$(EMUB)/pic/solutions/$(n).o))
grade_build = $(if $(grade_ok),$(GRADE_FIRST)) $(DRIVER) $(if $(grade_ok),$(GRADE_LAB_NAMES:%=$(GRADE_BUILT)/%.status))
