# grader/make/toolkit.mk - the toolkit, the target architectures and the flags every build
# step compiles with (nvcc, the host C compiler), and how much of each step make prints.
# Included by the Makefile, first of grader/make/'s rules (grader/make/README.md).

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
# -g1: line tables and function records (a backtrace's file:line), not the local variables'
# records, which cost a fifth of each host compile and no instruction (the emulated builds'
# choice too: common/emu/emu-nvcc).
CFLAGS  := -O2 -g1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers -Werror=implicit-function-declaration
# The build prints one short line per step (V=1 prints the full commands); make grade and
# make bench print one line per stage instead (grader/make/lab_status.sh), and none per step.
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
# The grader's include folders (the labs' contracts, common/, the generated headers): its own
# compiles take them; a student's compile filters them out of NVFLAGS (lab_rules.mk).
GRADER_INCLUDES = $(LAB_INCLUDES) -Icommon -I$(BUILD)/gen
# --extended-lambda and --expt-relaxed-constexpr let a file use what modern CUDA C++ is written
# with (a __device__ lambda handed to a kernel template; a constexpr function of the standard
# library, std::min or numeric_limits, called in a kernel), as the CPU emulator already compiles
# it; code that builds without them is compiled the same with them. NVTX_DISABLE makes NVTX's
# ranges (which Thrust and CUB open around their algorithms) no-ops, and leaves out the code that
# loads a profiler's library at run time (dlopen, which vetting refuses): a file that uses
# Thrust where its lab allows it builds; nothing is profiled through NVTX while grading.
# NVCC_LANG_FLAGS, the language a file is compiled as, are what the emulated build's check that
# a file builds for a GPU takes (lab_rules.mk's NVCC_CHECK), and not the code's flags: with
# -lineinfo nvcc also runs ptxas over the PTX and reads the files its #line directives name, which
# a hostile file points at /dev/zero (make explain's hostile case then waited out its limit);
# NVCC_CODE_FLAGS add the code's;
# neither expands ARCH_FLAGS, whose list of every architecture asks nvcc (a $(shell) that a lab's
# step would run through grader/make/lab_step.sh, into the student's build log).
NVCC_LANG_FLAGS = -std=c++17 --extended-lambda --expt-relaxed-constexpr -DNVTX_DISABLE
NVCC_CODE_FLAGS = -O3 -g $(if $(filter 1,$(DEVICE_G)),-G,-lineinfo) $(NVCC_LANG_FLAGS) \
           -Xcompiler -Wall -Wno-deprecated-gpu-targets
NVFLAGS = $(NVCC_CODE_FLAGS) $(ARCH_FLAGS) $(GRADER_INCLUDES)
# $(call compile_cu,SRC,OBJ,EXTRA-NVCC-FLAGS,EXTRA-HOST-FLAGS): one .cu file of the grader's own
# (common/, grader/). One with no device code (no kernel, nothing __device__, __constant__ or
# __shared__: the harness, the workers' trusted side, most labs' problems and shims) compiles
# as host C++ against the CUDA headers, with the flags nvcc hands its host compiler, in a third
# of nvcc's time: nvcc would only add an empty device image for each architecture. The host
# compiler refuses device code (those keywords are attributes it does not know, an error under
# -Werror=attributes; <<< is not C++), and nvcc compiles what it refuses, with its own messages.
# Everything else (the references, the rungs, students' files) nvcc compiles, always.
HOST_CU = $(or $(NVCC_CCBIN),g++) -x c++ -O3 -g -std=c++17 $(GRADER_INCLUDES) -I$(CUDA_HOME)/include \
          -Wall -Werror=attributes
compile_cu = $(if $(filter common/% grader/%,$(1)),{ $(HOST_CU) $(4) -c $(1) -o $(2) 2>$(2).host-err && \
             { cat $(2).host-err >&2; rm -f $(2).host-err; }; } || { rm -f $(2).host-err; \
             $(NVCC) $(NVFLAGS) $(3) -c $(1) -o $(2); },$(NVCC) $(NVFLAGS) $(3) -c $(1) -o $(2))
