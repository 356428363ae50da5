# grader/batch/batch.mk - `make grade-batch`: a folder of submissions into one gradebook.
#
#   make grade-batch SUBMISSIONS=dir [OUT=build/batch] [LAB=..] [SEED=..] [EMU=1] [GPUS=all]
#                    [WAIT=1]
#   make gradescope-kit [KIT=build/gradescope]    the Gradescope autograder folder and zip
#
# The work is done by build/host/grade-batch (grader/batch/batch.c and the files batch.h names);
# student folder names never pass through make or a shell. See grader/batch/README.md.

BATCH      := $(BUILD)/host/grade-batch
# One file a room (grader/batch/README.md): the program, its files, the scan of the submissions,
# the workers and their schedule, one student's grading, the gradebook.
BATCH_SRCS := batch files scan workers schedule grade_one gradebook
# The exports (grader/report/exports.h): the formats, the HTML page's chart, a check's fault
EXPORTS_OBJS := $(addprefix $(BUILD)/host/grader/report/,exports.o exports_text.o exports_chart.o exports_fault.o)
BATCH_OBJS := $(BATCH_SRCS:%=$(BUILD)/host/grader/batch/%.o) $(EXPORTS_OBJS) \
              $(BUILD)/host/common/json_read.o $(BUILD)/host/grader/sandbox/helper_files.o
OUT        ?= $(BUILD)/batch
GPUS       ?=
JOBS       ?=
WAIT       ?=
KIT        ?= $(BUILD)/gradescope

# Messages and paths are cut to their buffers on purpose (snprintf), never overflowed.
$(BATCH_OBJS): CFLAGS += -Wno-format-truncation
$(BATCH_OBJS): grader/batch/batch.h grader/report/exports.h grader/report/exports_parts.h grader/batch/schedule.h grader/sandbox/helper_files.h common/json_read.h common/json.h grader/plan/config.h grader/lab.h

$(BATCH): $(BATCH_OBJS) $(BUILD)/host/labs_registry.o $(HOST_OBJS) $(TABLE_OBJS)
	$(Q_LINK)$(CC) $(CFLAGS) $^ -lm -o $@

grade-batch: $(BATCH)

# The recipe of grade-batch (in the Makefile). Only the instructor's own settings pass here.
BATCH_RUN = $(BATCH) grade SUBMISSIONS='$(SUBMISSIONS)' OUT='$(OUT)' LAB='$(LAB)' \
            SEED='$(SEED)' EMU='$(EMU)' GPUS='$(GPUS)' JOBS='$(JOBS)' WAIT='$(WAIT)' \
            ALLOW_UNISOLATED='$(ALLOW_UNISOLATED)'

# What every student's grade shares, built once before the workers start (grade-batch runs
# this itself): the driver, the worker, and per lab the harness and the reference's object (on
# a GPU, the CPU emulator's too, for the WHERE line: grader/make/grade.mk's WHERE_B).
BATCH_LABS ?= $(LAB_NAMES)
.PHONY: batch-prebuild gradescope-kit
batch-prebuild: $(DRIVER) $(BATCH) $(BATCH_LABS:%=$(LABB)/%/harness) \
                $(BATCH_LABS:%=$(LABB)/%/reference.so) $(WORKER) \
                $(if $(WHERE_B),$(BATCH_LABS:%=$(WHERE_B)/.grader/%/harness) \
                    $(BATCH_LABS:%=$(WHERE_B)/.grader/%/reference.so) $(WHERE_B)/worker-emu)
ifeq ($(MODE),emu)
batch-prebuild: $(EMU_REWRITE) $(EMU_LIB)
endif

# One student's own objects (STUDENT=its tree), built by grade-batch's preparer beside another
# student's grading (grader/batch/schedule.h): every selected lab's runner, and what the WHERE
# line adds (on a GPU, the emulator's build of the student's file: grader/make/grade.mk's
# where_pieces; under EMU=1, the emulator's library); the shared pieces are batch-prebuild's.
.PHONY: batch-prepare
batch-prepare: $(BATCH_LABS:%=runner-%) $(foreach n,$(BATCH_LABS),$(call where_pieces,$(n)))
ifeq ($(MODE),emu)
batch-prepare: $(EMU_REWRITE) $(EMU_LIB)
endif

ifdef STUDENT_KIT
ifneq ($(filter gradescope-kit,$(MAKECMDGOALS)),)
$(error make gradescope-kit: $(KIT_SAYS); the Gradescope autograder is made from the full workbook)
endif
endif
gradescope-kit:
	@grader/batch/gradescope/make-kit.sh '$(KIT)'
