# grader/dist/dist.mk - `make dist`: the student kit, a tarball with no solution sources.
# Included by the Makefile.
#
#   make dist [DIST=build/dist] [DIST_NAME=cuda-workbook]
#
# DIST/DIST_NAME.tar.gz unpacks into DIST_NAME/: this checkout's tracked labs, grader, common,
# tests, slides, README.md and Makefile, and, instead of solutions/, each lab's reference as
# prebuilt objects (grader/dist/make-dist.sh):
#   prebuilt/gpu/NN-name/name.o   nvcc, fat: machine code for every architecture from sm_75 to
#                                 the newest this nvcc knows (FAT_ARCHS), plus its PTX
#   prebuilt/emu/NN-name/name.o   the emulator's object (g++, sanitizer instrumentation), as
#                                 EMU=1 builds it but for any x86-64 CPU (no FMA instructions)
#   prebuilt/BUILDINFO, prebuilt/README.md   the toolkit and g++ they need
# The ladder rungs (solutions/NN-name/steps/) are not in it, as sources or objects: make bench
# in the kit times the student's code, the reference and the ceiling. The Makefile uses a
# prebuilt object wherever solutions/NN-name/name.cu is absent.

DIST      ?= $(BUILD)/dist
DIST_NAME ?= cuda-workbook
DIST_TGZ   = $(DIST)/$(DIST_NAME).tar.gz
DIST_OBJ   = $(DIST)/obj
DIST_REFS := $(foreach d,$(LAB_DIRS),$(d)/$(word 2,$(subst -, ,$(d))))
DIST_DEPS  = $(wildcard common/*.h grader/*.h grader/*/*.h) $(CONTRACTS) grader/dist/dist.mk

.PHONY: dist

ifdef STUDENT_KIT
ifneq ($(filter dist,$(MAKECMDGOALS)),)
$(error make dist: $(KIT_SAYS); a kit is made from the full workbook)
endif
else
dist: $(DIST_REFS:%=$(DIST_OBJ)/gpu/%.o) $(DIST_REFS:%=$(DIST_OBJ)/emu/%.o) | toolkit
	@NVCC='$(NVCC)' EMU_CXX='$(EMU_CXX)' FAT_ARCHS='$(strip $(FAT_ARCHS))' \
	    grader/dist/make-dist.sh '$(DIST)' '$(DIST_NAME)' '$(DIST_OBJ)' $(LAB_DIRS)
endif

# Debug information is left out (the objects are linked, never debugged); the device code
# keeps its line table (-lineinfo: file names and line numbers, no source text). The kit's
# objects are always compiled here, fat, whatever the grader's own build was made for (a
# CUDA_ARCH, a GPU's architecture, or test-build's two).
.SECONDEXPANSION:
$(DIST_OBJ)/gpu/%.o: solutions/%.cu $$(wildcard solutions/$$(dir $$*)*.cuh) $(DIST_DEPS) | toolkit
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(filter-out $(ARCH_FLAGS),$(NVFLAGS)) $(FAT_ARCH_FLAGS) $(PIC) -c $< -o $@.full
	@objcopy --strip-debug $@.full $@ && rm -f $@.full

# -mno-fma: emu-nvcc uses FMA instructions where this CPU has them (the results are the same
# without); the kit's object must run on every x86-64 CPU.
$(DIST_OBJ)/emu/%.o: solutions/%.cu $$(wildcard solutions/$$(dir $$*)*.cuh) $(DIST_DEPS) $(EMU_HEADERS) $(EMU_REWRITE) $(EMU_LIB)
	@mkdir -p $(@D)
	@echo "  EMU     $<"
	@$(call emu_compile_cu,$<,$@.full,$(EMU_INCLUDES) -fPIC -Xcompiler -mno-fma)
	@objcopy --strip-debug $@.full $@ && rm -f $@.full
