# grader/make/paths.mk - the labs (their folders, names and contracts) and the paths of what
# is graded: the student's file of each lab (STUDENT, checked before anything is built), its
# helper files, and the reference's source or prebuilt object. Included by the Makefile, after
# toolkit.mk (grader/make/README.md).

# ------------------------------------------------------------------------------------------
# What make builds is named by these variables, and none is a setting: given on make's command
# line, one would be where make writes (make grade DRIVER=/usr/bin/true would link the grader's
# driver over that program, as root over the system's). make refuses them; BUILD=<folder> moves
# them all. tests/docs/made_paths.py derives this list from the makefiles and holds it.
MADE_PATHS := BATCH BATCH_OBJS BATCH_RUN DIST_OBJ DRIVER EMUB EMU_BUILD EMU_EXPORTS EMU_INTERNAL \
    EMU_LDLIBS EMU_LIB EMU_PCH EMU_PLANTED_BINS EMU_REWRITE EMU_TEST_BUILD EMU_VIS GEN GPU \
    GPU_SHIM GRADE_BUILT GRADE_DRIVER_CMD LABB MANIFEST MANIFEST_H REPORT_OBJS SANDBOX_RUN \
    SERVE_BASE SERVE_BIN SERVE_EXPORT SERVE_FLAGS SERVE_KEEPER SERVE_O SERVE_PACK SERVE_ROSTER \
    STUDENT_OBJS STUDENT_SRC_CHECKS TESTS TEST_DIST_DIR TEST_TIERS_STAMP
made_path_given := $(strip $(foreach v,$(MADE_PATHS),$(if $(filter command line override,$(origin \
    $(v))),$(v))))
ifneq ($(made_path_given),)
made_path_first := $(firstword $(made_path_given))
$(error $(made_path_first)=$(value $(made_path_first)) on make's command line: $(made_path_first) names \
    what make builds, not a setting, and make would write there; it stopped before building or \
    changing anything. Leave $(made_path_first)= out; BUILD=<folder> puts everything make builds \
    in another folder$(if $(filter GPU,$(made_path_given)), and GPU_PROFILE=<gpu> picks the GPU \
    that make explain and the estimate speak of))
endif

# ------------------------------------------------------------------------------------------
# The labs: labs/NN-name/name.cu with solutions/NN-name/name.cu, and grader/labs/NN-name/
# with the contract name.h, the manifest and check table table.c, the problem problem.cu and
# the shim shim_untrusted.cu. The table is the one place for the lab's entry points and their
# signatures and for what its student file may not use: ENTRY_name, FORBID_name (libraries,
# by their use), FORBID_PTX_name and FORBID_SASS_name (over instructions) come from it, through
# $(BUILD)/gen/labs.mk (host.mk). A lab may add grader/labs/NN-name/lab.mk for its link flags
# (LIBS_name for its problem.so, which the harness loads; SHIM_LIBS_name for the shim) and
# PROFILE_name.

LAB_DIRS  := $(sort $(notdir $(wildcard grader/labs/[0-9][0-9]-*)))
LAB_NAMES := $(foreach d,$(LAB_DIRS),$(word 2,$(subst -, ,$(d))))
lab_dir    = $(filter %-$(1),$(LAB_DIRS))
# A lab's grader folder, and every contract on the include path (each lab's name.h).
lab_grader = grader/labs/$(call lab_dir,$(1))
LAB_INCLUDES := $(LAB_DIRS:%=-Igrader/labs/%)
CONTRACTS := $(foreach d,$(LAB_DIRS),$(wildcard grader/labs/$(d)/*.h grader/labs/$(d)/*.cuh))
-include $(wildcard grader/labs/*/lab.mk)

# STUDENT is a path, not code: its raw text (make would expand a $(...) in it) may hold no shell
# or make syntax and no spaces (make grade-batch copies such folders to a safe path first).
comma := ,
MANIFEST := $(BUILD)/host/lab-manifest
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
endif
# Whether STUDENT is a tree laid out like labs/ or one .cu file (a ladder rung: give LAB= too),
# and each lab's paths under it, are grader/plan/lab_select.c's rule, stated there alone: make
# asks lab-manifest (MANIFEST, above; host.mk builds it) once a make, `lab-manifest
# student-paths STUDENT`, and reads its words: "file" or "tree", then per lab (at
# STUDENT_AT_name, from $(BUILD)/gen/labs.mk) student_src, the lab's file
# ("labs/06-transpose/transpose.cu"); student_tree and student_rel, the same file as a tree and
# a path inside it (the compile sandbox copies only that file, and only when it is a regular
# file reached through real folders); student_box, its place in the sandbox (lab_rules.mk).
# Words, not make text: a # or \ in a path is read as itself. The driver, the batch and the
# reports call the same C. (Kept from the first answer; asked again while there is none, as
# before the program is built: make builds it, reads the makefiles again, and checks LAB=
# below then.)
STUDENT_PATHS = $(or $(student_paths_kept),$(call student_paths_read))
student_paths_read = $(if $(wildcard $(MANIFEST)),$(eval student_paths_now := $$(shell \
    $$(MANIFEST) student-paths '$$(STUDENT)' 2>/dev/null))$(if $(filter file tree,$(firstword \
    $(student_paths_now))),$(eval student_paths_kept := $$(student_paths_now))$(student_paths_now)))
STUDENT_IS_FILE = $(filter file,$(firstword $(STUDENT_PATHS)))
student_word = $(if $(STUDENT_AT_$(1)),$(word $(word $(2),$(STUDENT_AT_$(1))),$(STUDENT_PATHS)))
student_src = $(call student_word,$(1),1)
student_tree = $(call student_word,$(1),2)
student_rel = $(call student_word,$(1),3)
student_box = $(call student_word,$(1),4)
# One file is one lab's: which one is the LAB= it is given (one lab, not a list or none).
ifneq ($(filter grade bench explain profile sanitize,$(MAKECMDGOALS)),)
ifneq ($(STUDENT_IS_FILE),)
ifneq ($(words $(subst $(comma), ,$(LAB))),1)
$(error STUDENT=$(STUDENT) is one file: say which lab it is with one LAB= (make $(firstword $(filter grade bench explain profile sanitize,$(MAKECMDGOALS))) STUDENT=$(STUDENT) LAB=transpose, or LAB=06))
endif
endif
endif
STUDENT_TAG := $(subst /,_,$(patsubst %/,%,$(STUDENT)))
# The files beside the student's that compile with it, their own helpers
# (grader/sandbox/helper_files.h: what the lab file includes, at any depth, copied into the
# compile sandbox by sandbox-run): each build's record of them (student.deps, read by
# lab_rules.mk's student_helpers) builds the lab again when one changes, goes or appears.
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
ref_src = $(if $(STUDENT_REL_$(1)),$(wildcard solutions/$(STUDENT_REL_$(1))))
ref_input = $(or $(call ref_src,$(1)),prebuilt/$(2)/$(call lab_dir,$(1))/$(1).o)
# Non-empty when the student's file for lab $(1) is the reference's source itself.
is_ref = $(if $(call ref_src,$(1)),$(filter $(call ref_src,$(1)),$(call student_src,$(1))))
