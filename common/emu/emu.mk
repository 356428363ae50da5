# common/emu/emu.mk -- building CUDA sources for the CPU emulator.
#
# Included by the top-level Makefile (which sets BUILD) and by
# tests/emu/emu_tests.mk. It defines how to build the two tools of the
# emulator and how to compile a .cu file with them:
#
#   $(EMU_REWRITE)   the source rewriter (launches, __shared__, #line)
#   $(EMU_LIB)       the runtime: CUDA API, fibers, race and bounds checks
#   $(EMU_NVCC)      common/emu/emu-nvcc: nvcc's command line, for the CPU
#   $(call emu_compile_cu,SRC.cu,OUT.o[,EXTRA_FLAGS])
#                    a recipe line: emu-nvcc -c SRC.cu -o OUT.o (rewrite to
#                    OUT.cpp, compile); EXTRA_FLAGS (-I, -D) go to both steps
#
# and the flags to build and link an emulated program with:
#   $(EMU_CXX) $(EMU_LDFLAGS) objects... -o prog $(EMU_LDLIBS)
# Plain .c files linked into it: $(EMU_CC) $(EMU_CPPFLAGS) $(EMU_CFLAGS) -c.

ifndef EMU_MK_INCLUDED
EMU_MK_INCLUDED := 1

EMU_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= build
EMU_BUILD := $(BUILD)/emu

EMU_CXX ?= g++
EMU_CC ?= gcc

# The flags live in emu-nvcc, the command that compiles CUDA C for the emulator
# (common/emu/emu-nvcc); these are the same sets, for rules that call the
# compilers themselves. A rewritten .cu file gets ThreadSanitizer's
# instrumentation instead of AddressSanitizer's: every load and store then
# calls the runtime's checks (bounds, races, uninitialized reads:
# common/emu/src/track.cpp), which stand in for the ThreadSanitizer runtime.
# Link with $(EMU_LDFLAGS) only: adding EMU_CXXFLAGS to the link line would
# ask for both sanitizer runtimes.
# The six sets are asked of emu-nvcc in one run (--emu-print make) when a recipe first needs
# one of them (a make that builds nothing for the emulator asks nothing); emu_flags_all asks
# for them at once (grade.mk, while make reads its rules).
EMU_NVCC := $(EMU_DIR)/emu-nvcc
define EMU_NEWLINE


endef
emu_flags_all = $(if $(EMU_FLAGS_ldlibs),,$(eval $(subst @@,$(EMU_NEWLINE),$(shell $(EMU_NVCC) --emu-print make))))
emu_flags = $(emu_flags_all)$(EMU_FLAGS_$(1))
EMU_SANITIZE = $(call emu_flags,sanitize)
EMU_CPPFLAGS = $(call emu_flags,cppflags)
EMU_CXXFLAGS = $(call emu_flags,cxxflags)
EMU_CFLAGS = $(call emu_flags,cflags)
EMU_LDFLAGS = $(call emu_flags,ldflags)
EMU_REWRITE := $(EMU_BUILD)/tools/emu-rewrite
EMU_LIB := $(EMU_BUILD)/tools/libcudaemu.a
EMU_LDLIBS = $(EMU_LIB) $(call emu_flags,ldlibs)
# The prelude every rewritten .cu file includes first, precompiled once for each kind of
# compile (emu-nvcc --emu-pch), every one position-independent: checked (a file with a kernel,
# or anyone's but the grader's) and trusted (the grader's own files without a kernel). A
# prerequisite of every .cu compile, which it makes quicker, not different. (trusted: make
# grade's lab problems without a kernel took 1.5 core-seconds more without it than with it,
# and making it takes 0.9.)
EMU_PCH_KINDS := checked trusted
EMU_PCH := $(EMU_PCH_KINDS:%=$(EMU_BUILD)/pch/cuda_emu/prelude.h.gch/%)

# emu_compile_cu(SRC, OUT, EXTRA_FLAGS): emu-nvcc -c, with the tools of this
# build; the .o depends on $(EMU_REWRITE) and every header it read through the
# dependency files written here (OUT.d, OUT.d.rw.d).
define emu_compile_cu
EMU_BUILD=$(EMU_BUILD) EMU_CXX=$(EMU_CXX) EMU_CC=$(EMU_CC) $(EMU_NVCC) -c $(1) -o $(2) $(3) -MD -MF $(2).d -MT $(2)
endef

# ---- The tools ---------------------------------------------------------------

# A build that includes this file may set Q_CC and Q_LINK (a short line printed for a command:
# `@echo "  CC      $<";`), and Q_PCH (`@`: no line for the precompiled prelude either);
# without them every command is printed as it runs.
EMU_Q = $(if $(Q_LINK),@)

EMU_REWRITE_SRCS := $(EMU_DIR)/rewrite/rewrite.cpp $(EMU_DIR)/rewrite/figures.cpp $(EMU_DIR)/rewrite/rewrite_main.cpp
# The API side (runtime, atomics, reports) is itself built with the sanitizers;
# the scheduler and the access hooks, which run at every switch and every load
# and store, are built for speed.
# EMU_LIB_DEFS=-DCUDA_EMU_FIBER_UCONTEXT selects the portable (slower) context
# switch that other architectures get anyway; x86-64 uses fiber_x86_64.S.
EMU_LIB_DEFS ?=
# Debug information at -g1, as every emulated compile has it (emu-nvcc): the line tables and
# inlined frames that a report's stack is symbolized from; not the local variables' records,
# which took a third of the library's compile (runtime.cpp 9.4 -> 6.4 core-s) and change no
# instruction of its code (objdump -d: the same). EMU_LIB_DEBUG=-g for a debugger's session.
EMU_LIB_DEBUG ?= -g1
EMU_LIB_CHECKED := runtime atomics report
EMU_LIB_FAST := exec warp fiber track devmem count
EMU_LIB_OBJS := $(patsubst %,$(EMU_BUILD)/tools/%.o,$(EMU_LIB_CHECKED) $(EMU_LIB_FAST) rounding fiber_x86_64)
EMU_HEADERS := $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/cuda_emu/*.h $(EMU_DIR)/src/*.h)

# -O0: a first build waits for the rewriter before any .cu file, and optimizing it costs build
# time (-O1 3.3 s, -O0 1.4 s, -O2 more) that it never gives back: a lab's file rewrites in a few
# milliseconds at any level. Debug information as the library's ($(EMU_LIB_DEBUG), above: -g1, a
# crash's stack with its lines; -g, the local variables too, took a tenth more).
$(EMU_REWRITE): $(EMU_REWRITE_SRCS) $(EMU_DIR)/rewrite/rewrite.h $(EMU_DIR)/rewrite/figures.h
	@mkdir -p $(dir $@)
	$(Q_LINK)$(EMU_CXX) -std=c++17 -O0 $(EMU_LIB_DEBUG) -Wall -Wextra -o $@ $(EMU_REWRITE_SRCS)

# The library keeps its engine to itself: compiled with -fvisibility=hidden, it exports only
# what the public headers declare (include/, "#pragma GCC visibility push(default)") and the
# hooks src/emu_internal.h marks CUDA_EMU_EXPORT. Beside it, two lists of its symbols:
#   $(EMU_EXPORTS)   the exported ones, as a --dynamic-list: a program that loads compiled CUDA
#                    code from a shared object (the grader's harness and worker) exports these,
#                    and nothing else, to it ($(EMU_EXPORT_FLAGS))
#   $(EMU_INTERNAL)  the hidden ones (the settings, the scheduler, the race checker,
#                    cuda_emu/testing.h's switches), one mangled name a line: a shared object
#                    that names one of them is refused (common/emu/check-internal.sh)
# A test of the emulator itself links the library into its program and may call them.
EMU_EXPORTS := $(EMU_BUILD)/tools/libcudaemu.dynlist
EMU_INTERNAL := $(EMU_BUILD)/tools/libcudaemu.internal
EMU_EXPORT_FLAGS = -Wl,--dynamic-list=$(EMU_EXPORTS) -Wl,--whole-archive $(EMU_LIB) -Wl,--no-whole-archive
EMU_VISIBILITY := -fvisibility=hidden

$(EMU_LIB): $(EMU_LIB_OBJS)
	$(Q_LINK)rm -f $@
	$(EMU_Q)ar rcs $@ $^
	$(EMU_Q)readelf -sW $@ | awk '$$5 ~ /GLOBAL|WEAK/ && $$7 != "UND" && $$6 == "DEFAULT" && $$8 !~ /^__odr_asan/ { print "  \"" $$8 "\";" }' | \
	    sort -u | { echo "{"; cat; echo "};"; } > $(EMU_EXPORTS)
	$(EMU_Q)readelf -sW $@ | awk '$$5 ~ /GLOBAL|WEAK/ && $$7 != "UND" && $$6 == "HIDDEN" && $$8 !~ /^__odr_asan/ { print $$8 }' | \
	    sort -u > $(EMU_INTERNAL)
	@if grep -qE '^(cuda[A-Z]|__cuda|__tsan_)' $(EMU_INTERNAL); then \
	    grep -E '^(cuda[A-Z]|__cuda|__tsan_)' $(EMU_INTERNAL) | sed 's/^/emu.mk: error: /; s/$$/ is the CUDA API but hidden: declare it in a header of include\/, under its "#pragma GCC visibility push(default)"/' >&2; \
	    rm -f $@; exit 1; fi

$(EMU_LIB_CHECKED:%=$(EMU_BUILD)/tools/%.o): $(EMU_BUILD)/tools/%.o: $(EMU_DIR)/src/%.cpp $(EMU_HEADERS)
	@mkdir -p $(dir $@)
	$(Q_CC)$(EMU_CXX) -std=c++17 $(EMU_LIB_DEBUG) -O1 $(EMU_SANITIZE) $(EMU_VISIBILITY) $(EMU_LIB_DEFS) -Wall -Wextra -c $< -o $@

$(EMU_LIB_FAST:%=$(EMU_BUILD)/tools/%.o): $(EMU_BUILD)/tools/%.o: $(EMU_DIR)/src/%.cpp $(EMU_HEADERS)
	@mkdir -p $(dir $@)
	$(Q_CC)$(EMU_CXX) -std=c++17 $(EMU_LIB_DEBUG) -O2 -fno-omit-frame-pointer $(EMU_VISIBILITY) $(EMU_LIB_DEFS) -Wall -Wextra -c $< -o $@

# The directed-rounding intrinsics change the CPU's rounding mode around each
# operation: -frounding-math keeps the compiler from moving or folding it.
$(EMU_BUILD)/tools/rounding.o: $(EMU_DIR)/src/rounding.cpp $(EMU_HEADERS)
	@mkdir -p $(dir $@)
	$(Q_CC)$(EMU_CXX) -std=c++17 $(EMU_LIB_DEBUG) -O2 -frounding-math $(EMU_VISIBILITY) $(EMU_LIB_DEFS) -Wall -Wextra -c $< -o $@

$(EMU_BUILD)/tools/fiber_x86_64.o: $(EMU_DIR)/src/fiber_x86_64.S
	@mkdir -p $(dir $@)
	$(Q_CC)$(EMU_CC) -c $< -o $@

# (each header it holds is in its dependency file: pch/KIND.d). It depends on every entry of
# include/ too, the headers it does not hold among them: emu-nvcc offers a precompiled file only
# while nothing in include/ is newer (pch_usable), so a header outside the prelude that changed
# would otherwise leave every compile without it until the files were removed by hand.
EMU_INCLUDE_TREE := $(wildcard $(EMU_DIR)/include $(EMU_DIR)/include/* $(EMU_DIR)/include/*/* \
                               $(EMU_DIR)/include/*/*/*)
$(EMU_PCH): $(EMU_BUILD)/pch/cuda_emu/prelude.h.gch/%: $(EMU_NVCC) $(EMU_DIR)/include/cuda_emu/prelude.h \
            $(EMU_INCLUDE_TREE)
	$(if $(Q_LINK),$(or $(Q_PCH),@echo "  EMU-PCH $(EMU_DIR)/include/cuda_emu/prelude.h ($*)";))EMU_BUILD=$(EMU_BUILD) EMU_CXX=$(EMU_CXX) EMU_CC=$(EMU_CC) $(EMU_NVCC) --emu-pch $* $@

# Every dependency file emu_compile_cu wrote (objects lie at most six folders below).
-include $(wildcard $(foreach d,* */* */*/* */*/*/* */*/*/*/* */*/*/*/*/*,$(EMU_BUILD)/$(d).d))

endif
