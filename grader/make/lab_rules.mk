# grader/make/lab_rules.mk - each lab's pieces, in either mode: the student's compile in the
# compile sandbox, the GPU build (nvcc) and the CPU emulator's, one template of rules per lab
# and mode, the ladder's rungs, and what one lab and the grader need to be graded. Included by
# the Makefile, last of grader/make/'s rules (grader/make/README.md).


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
sandbox_hidden = $(CURDIR) $(abspath solutions $(BUILD) $(GRADE_DIR)) $(abspath $(call student_tree,$(1))) $(GRADER_HIDE) $(STUDENT_CACHE)
# The student's file lands in the sandbox at student_box (paths.mk: the lab's folder name and
# the file's, never the top of the work folder, where the compile runs and the workbook's
# headers and scripts are), its helpers beside it; sandbox-run writes, beside OBJECT, make's
# record of the student's files the compile was given (student.deps, read below: a changed,
# removed or newly made helper at any depth builds the lab again).
sandboxed_build = $(SANDBOX_RUN) --work $(dir $(2))sandbox --student $(call student_tree,$(1)) $(call student_rel,$(1)) \
    --student-as $(call student_box,$(1)) --deps $(dir $(2))student.deps STUDENT_DEPS_$(1) \
    $(foreach h,$(wildcard $(call lab_grader,$(1))/*.h $(call lab_grader,$(1))/*.cuh) $(PUBLIC_HEADERS) $(call solution_headers,$(1)),--copy $(h) include/$(notdir $(h))) \
    --copy grader/make/vet.sh vet.sh --copy grader/make/build_student.sh build_student.sh --get student.o $(2) \
    --no-proc $(foreach d,$(call sandbox_hidden,$(1)),--hide '$(d)') \
    --get $(call student_box,$(1)) $(dir $(2))source.cu \
    $(if $(NVCC_PREPEND_FLAGS),--env 'NVCC_PREPEND_FLAGS=$(NVCC_PREPEND_FLAGS)') \
    $(if $(SANDBOX_WALL),--wall $(SANDBOX_WALL)) $(if $(SANDBOX_MEM_MIB),--mem $(SANDBOX_MEM_MIB))

# STUDENT_CACHE=dir (the test suites set it; empty for make grade): a student's file compiled
# once already, byte for byte, with the same flags and inputs, takes that compile's vetted object
# (grader/make/student_cache.py: keyed by the SHA-256 of the lab file's folder, every file
# copied in, the sandbox's settings and the compile command, the toolchain's identity; a folder
# no sandbox sees). $(call student_cached,MODE): the words before sandbox-run.
student_cached = $(if $(STUDENT_CACHE),python3 grader/make/student_cache.py $(foreach f,$(NVCC) $(CUOBJDUMP) $(if $(filter emu,$(1)),$(EMU_LIB)),--stat $(f)) --)

# ------------------------------------------------------------------------------------------
# GPU builds (nvcc). Per lab, three pieces, so that student code never shares a process with
# the grader (see grader/README.md, "How grading works"):
#   $(LABB)/<lab>/problem.so    TRUSTED: the lab's problem code and table (and its libraries),
#                               which the harness loads: buffers, inputs, verification
#   $(LABB)/<lab>/reference.so  the reference behind the lab's shim (grader/labs/NN-name/)
#   $(STUDENT_OBJS)/<lab>/student.so the student's vetted object behind the same shim
# one harness program, $(LABB)/harness (TRUSTED: timing, the workers, no student code), which
# serves every lab ($(LABB)/<lab>/harness: a link to it, which serves that lab's problem.so
# beside it), and one worker program, $(BUILD)/<mode>/worker, that sandboxes itself and loads a .so.

GPU := $(BUILD)/gpu
# The harness's side of its workers (grader/harness/worker_trusted.h), one file per concern.
WORKER_TRUSTED := worker_lifecycle_trusted worker_relay_trusted worker_buffers_trusted worker_regions_trusted worker_protocol_trusted worker_idle_trusted \
                  worker_report_trusted
# The harness (grader/harness/harness_parts.h), one file per concern: main and one check, the labs'
# hooks and the records, a speed check's units and its phases, make bench.
HARNESS_PARTS := harness harness_labs harness_emit harness_units harness_speed harness_bench
LABB = $(BUILD)/$(MODE)/.grader
PIC := -Xcompiler -fPIC
CUDART_SHARED = -cudart shared -Xlinker -rpath=$(CUDA_HOME)/lib64
# The driver API (virtual-memory allocations shared by file descriptor); the toolkit's stub
# satisfies the link where no driver is installed.
LIBCUDA = -L$(CUDA_HOME)/lib64/stubs -lcuda
GPU_COMMON := $(addprefix $(GPU)/common/,check.o device.o buffer.o timing.o devcheck.o) \
              $(HARNESS_PARTS:%=$(GPU)/grader/harness/%.o) $(WORKER_TRUSTED:%=$(GPU)/grader/harness/%.o) \
              $(GPU)/grader/harness/profile_trusted.o $(GPU)/grader/harness/timeline_trusted.o
# make profile's timeline: the harness exports the runtime's copy and launch functions that
# grader/harness/timeline_trusted.c wraps, so an implementation loaded into it calls those first.
TIMELINE_EXPORT := -Xlinker --dynamic-list=grader/harness/timeline.dynlist
# The harness exports to the labs' problem.so what they call of its own (harness.h's helpers,
# common/'s buffers, fills, comparison, ...), and nothing else (grader/harness/problem.dynlist).
HARNESS_EXPORT := -Xlinker --dynamic-list=grader/harness/problem.dynlist
GPU_SHIM := $(GPU)/pic/grader/worker/worker_loop_untrusted.o

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
	$(Q_NVCC)$(call compile_cu,$<,$@,-Igrader,-Igrader)

$(GPU)/pic/%.o: %.cu $(wildcard grader/*.h grader/*/*.h) $(CONTRACTS) | toolkit
	@mkdir -p $(@D)
	$(Q_NVCC)$(call compile_cu,$<,$@,$(PIC) -Igrader,-fPIC -Igrader)

# A lab's table, position-independent, for its problem.so.
$(BUILD)/host/pic/%.o: %.c $(wildcard common/*.h grader/*.h grader/*/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(CFLAGS) -fPIC -Igrader -c $< -o $@

$(GPU)/grader/harness/timeline_trusted.o: grader/harness/timeline_trusted.c grader/harness/timeline_trusted.h | toolkit
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(CFLAGS) -I$(CUDA_HOME)/include -c $< -o $@

# The worker program: its main and the filter it installs before it loads any code.
WORKER_SRCS := grader/worker/worker_untrusted.c grader/sandbox/seccomp.c
$(BUILD)/gpu/worker: $(WORKER_SRCS) grader/sandbox/seccomp.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) -O2 -g -Wall -Wextra $(WORKER_SRCS) -ldl -o $@

.SECONDARY:
# A student's file that is gone fails the build: the pattern rule above would not apply for want
# of its source, and an object of an earlier build would be graded in its place. (A file that is
# there but not a regular file, a link or a pipe, goes on to the compile sandbox, which refuses
# it and says why.)
# The student's object depends on the file where it reaches one (a link to nothing does not), and
# on the check in its place where it does not, so that make says the file is missing in the
# grader's own words rather than stopping with "No rule to make target".
student_src_dep = $(if $(realpath $(call student_src,$(1))),$(call student_src,$(1)),student-src-$(1))
STUDENT_SRC_CHECKS := $(LAB_NAMES:%=student-src-%)
.PHONY: $(STUDENT_SRC_CHECKS)
$(STUDENT_SRC_CHECKS): student-src-%:
	@[ -e "$(call student_src,$*)" ] || [ -L "$(call student_src,$*)" ] || { echo "error: your file was not found: expected it at $(call student_src,$*)" >&2; exit 1; }

# The problems and shims include lab_manifest.h.
$(foreach d,$(LAB_DIRS),$(GPU)/pic/grader/labs/$(d)/problem.o $(GPU)/pic/grader/labs/$(d)/shim_untrusted.o): $(MANIFEST_H)

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
              $(HARNESS_PARTS:%=$(EMUB)/grader/harness/%.o) $(WORKER_TRUSTED:%=$(EMUB)/grader/harness/%.o) \
              $(EMUB)/grader/harness/profile_trusted.o
EMU_HOST_OBJS := $(HOST_COMMON:%=$(EMUB)/host/common/%.o) $(EMUB)/host/common/parallel.o \
    $(EMUB)/host/grader/wire/records.o $(EMUB)/host/grader/wire/check_line.o \
    $(EMUB)/host/grader/harness/hidden_size.o $(EMUB)/host/grader/harness/alone_cache.o $(EMUB)/host/grader/harness/region.o \
    $(SANDBOX_PIECES:%=$(EMUB)/host/grader/sandbox/%.o)
EMU_INCLUDES := -Icommon $(LAB_INCLUDES) -Igrader -I$(GEN)
$(foreach d,$(LAB_DIRS),$(EMUB)/pic/grader/labs/$(d)/problem.o $(EMUB)/pic/grader/labs/$(d)/shim_untrusted.o): $(MANIFEST_H)
EMU_EXPORT = $(EMU_EXPORT_FLAGS)
# Libraries only the GPU build needs (cuBLAS is fenced off with CUDA_EMU in the sources).
$(foreach n,$(LAB_NAMES),$(eval EMU_LIBS_$(n) ?= $(filter-out -lcublas -lcublasLt,$(LIBS_$(n)))))

$(EMUB)/host/%.o: %.c $(wildcard common/*.h grader/*.h grader/*/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(EMU_CC) $(EMU_CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Igrader -c $< -o $@

# The harness's objects are the grader's own code: those that define no kernel are compiled
# without the emulator's per-access checks (emu-nvcc --emu-trusted-host), which its CPU
# reference answers and verification loops do not need.
# A compile needs the rewriter and the precompiled prelude, not the emulator's library (as the
# emulator's own tests build: common/emu/emu_tests.mk): only what links needs the library, so
# that a first build compiles the .cu files beside the library's long compiles instead of after
# them (a link that checks the engine's internals, check-internal.sh, waits for the library,
# whose list it reads: ref_so_deps_emu and student_deps_emu, below; the harness and the worker
# link the library itself).
$(EMUB)/common/%.o: common/%.cu $(EMU_NVCC) $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) --emu-trusted-host)

$(EMUB)/grader/%.o: grader/%.cu $(EMU_NVCC) $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) --emu-trusted-host)

# A lab's problem (the grader's own code, like the harness's), position-independent for its
# problem.so, and its table.
$(EMUB)/pic/grader/labs/%/problem.o: grader/labs/%/problem.cu $(EMU_NVCC) $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) --emu-trusted-host -fPIC)

$(EMUB)/host/pic/%.o: %.c $(wildcard common/*.h grader/*.h grader/*/*.h)
	@mkdir -p $(@D)
	$(Q_CC)$(EMU_CC) $(EMU_CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -fPIC -Igrader -c $< -o $@

$(EMUB)/pic/%.o: %.cu $(EMU_REWRITE) $(EMU_PCH)
	$(Q_EMU)$(call emu_compile_cu,$<,$@,$(EMU_INCLUDES) -fPIC)

EMU_WORKER_OBJS := $(WORKER_SRCS:%.c=$(EMUB)/host/%.o)
$(EMUB)/worker-emu: $(EMU_WORKER_OBJS) $(EMU_LIB)
	$(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(EMU_WORKER_OBJS) $(EMU_EXPORT) $(EMU_LDLIBS) -ldl -lpthread -o $@

endif

# ------------------------------------------------------------------------------------------
# One lab's pieces, in either mode: one template, $(call lab_rules,MODE,NAME), instantiated
# for every lab in each mode below, and what differs between the modes, named once:
#   B_mode, HOSTB_mode   the mode's build folder, and where the lab's table.o is compiled
#   SHIM_mode            the workers' command loop (grader/worker/worker_loop_untrusted.cu), compiled
#   CU_DEPS_mode         what compiling CUDA C needs besides the source (last: it may hold
#                        an order-only part)
#   compile_pic_mode     $(call ...,SRC,OUT): a .cu file to a position-independent object
#   link_harness_mode    the harness from the rule's objects (one a mode, every lab's)
#   link_problem_mode    $(call ...,NAME): the lab's problem.so from the rule's objects
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
SHIM_emu = $(EMUB)/pic/grader/worker/worker_loop_untrusted.o
CU_DEPS_gpu = | toolkit
CU_DEPS_emu = $(EMU_REWRITE) $(EMU_PCH)
HARNESS_DEPS_gpu = $(GPU_COMMON) $(RUNNER_HOST_OBJS) grader/harness/timeline.dynlist grader/harness/problem.dynlist
HARNESS_DEPS_emu = $(EMU_COMMON) $(EMU_HOST_OBJS) $(EMU_LIB) grader/harness/problem.dynlist
compile_pic_gpu = $(Q_NVCC)$(NVCC) $(NVFLAGS) $(PIC) -c $(1) -o $(2)
compile_pic_emu = $(Q_EMU)$(call emu_compile_cu,$(1),$(2),$(EMU_INCLUDES) -fPIC)
link_harness_gpu = $(Q_LINK)$(NVCC) $(ARCH_FLAGS) $(filter %.o,$^) $(CUDART_SHARED) $(LIBCUDA) $(TIMELINE_EXPORT) $(HARNESS_EXPORT) -ldl -lpthread -o $@
link_harness_emu = $(Q_LINK)$(EMU_CXX) $(EMU_LDFLAGS) $(filter %.o,$^) $(EMU_EXPORT) -Wl,--dynamic-list=grader/harness/problem.dynlist $(EMU_LDLIBS) -ldl -lpthread -o $@
link_problem_gpu = $(Q_LINK)$(NVCC) -shared $(ARCH_FLAGS) $(filter %.o,$^) $(LIBS_$(1)) $(CUDART_SHARED) $(LIBCUDA) -o $@
link_problem_emu = $(Q_LINK)$(EMU_CXX) -shared $(filter %.o,$^) $(EMU_LIBS_$(1)) -o $@
link_so_gpu = $(Q_LINK)$(NVCC) -shared $(ARCH_FLAGS) $(2) $(SHIM_LIBS_$(1)) $(CUDART_SHARED) $(LIBCUDA) -o $@
link_so_emu = $(Q_LINK)$(EMU_CXX) -shared $(2) $(SHIM_LIBS_EMU_$(1)) -o $@ && \
    { common/emu/check-internal.sh $(EMU_INTERNAL) $@ || { rm -f $@; exit 1; }; }
use_prebuilt_gpu = NVCC=$(NVCC) grader/dist/check-prebuilt.sh gpu $< && cp $< $@
use_prebuilt_emu = grader/dist/check-prebuilt.sh emu $< && cp $< $@
# A prebuilt reference for the emulator is compiled code of another g++: the worker is linked
# against it once (every symbol it needs must resolve), so that a g++ that cannot use it says
# so here. (The GPU's prebuilt object is checked by check-prebuilt.sh gpu alone.) Either way the
# reference's link waits for the library (its list of the engine's internals, link_so_emu).
ref_so_deps_emu = $(EMU_LIB) $(if $(call ref_src,$(1)),,$(EMU_WORKER_OBJS))
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
    --env "PTX_COMPILE=$(NVCC) $(NVCC_CODE_FLAGS) -Iinclude -arch=compute_90"
# (the emulator's compile needs its public headers, their precompiled prelude, emu-nvcc and the
# rewriter; not its sources nor its library; and, for a file that asks what its kernels use, the
# toolkit's nvcc, which every sandbox shows: emu-nvcc's "nvcc's figures", run in this sandbox)
# NVCC_CHECK: nvcc on the same file as the GPU build takes it (its language flags), cicc's
# optimizer off; build_student.sh adds -ptx (a file the emulator compiled: about a third of a
# second, the front end's checks being what is asked) or -c (a file it did not: the host side
# too, compiled and assembled as on a GPU), so that a file the emulator compiles but nvcc refuses
# (a host function called from a kernel, a library function that is not __device__) fails its
# build here as it would on a GPU, and one nvcc compiles but the emulator cannot is refused.
student_sandbox_emu = --visible $(abspath $(EMU_DIR))/include --visible $(abspath $(EMU_BUILD))/pch \
    --visible $(abspath $(EMU_NVCC)) --visible $(abspath $(EMU_REWRITE)) \
    --env EMU_BUILD=$(abspath $(EMU_BUILD)) --env EMU_CXX=$(EMU_CXX) --env EMU_CC=$(EMU_CC) \
    $(if $(NVCC),--env "NVCC_CHECK=$(NVCC) $(NVCC_LANG_FLAGS) -Wno-deprecated-gpu-targets -Iinclude -arch=compute_90 -Xcicc -O0")
student_cc_gpu = $(NVCC) $(filter-out $(GRADER_INCLUDES),$(NVFLAGS)) -Iinclude $(PIC)
student_cc_emu = $(abspath $(EMU_NVCC)) -Iinclude -fPIC

# $(call lab_rules,MODE,NAME). Paths built from STUDENT stay references ($$) until make reads
# the rule, so that no character of a folder's name is read as make syntax.
#   harness        TRUSTED: buffers, inputs, verification, timing (no student code)
#   the reference  compiled like any implementation (or its prebuilt object), behind the
#                  lab's shim: reference.so
#   student.so     the student's object behind the same shim. The object is compiled and
#                  vetted (grader/make/vet.sh) inside the compile sandbox (grader/sandbox/sandbox_run.c:
#                  the student's file and the public headers, the toolkit and the system,
#                  nothing of the checkout; bounded in time, memory, files and processes;
#                  its size capped by grader/make/build_student.sh), before anything runs it, and
#                  kept only inside the .so: build/ holds one copy of it. When the student's
#                  file is the reference's own (STUDENT=solutions: make test, make bench),
#                  the reference's object, compiled with the same flags, is used. A file that
#                  is gone fails it (student-src-NAME, above).
#                  Beside it, source.cu: the copy of the file that was compiled (make explain
#                  and the WHERE hints quote the student's lines from it, and from no other).
define lab_rules
$(B_$1)/.grader/$2/problem.so: $(B_$1)/pic/$(call lab_grader,$2)/problem.o $(HOSTB_$1)/pic/$(call lab_grader,$2)/table.o
	@mkdir -p $$(@D)
	$$(call link_problem_$1,$2)

$(B_$1)/.grader/$2/harness: $(B_$1)/.grader/harness | $(B_$1)/.grader/$2/problem.so
	@mkdir -p $$(@D)
	@ln -sfn ../harness $$@

$(B_$1)/pic/solutions/$2.o: $(call ref_input,$2,$1) $(wildcard solutions/$(call lab_dir,$2)/*.cuh) $(CONTRACTS) $(CU_DEPS_$1)
	@mkdir -p $$(@D)
	$$(if $$(filter %.o,$$<),@echo "  PREBUILT $$<"; $$(use_prebuilt_$1),$$(call compile_pic_$1,$$<,$$@))

$(B_$1)/.grader/$2/reference.so: $(SHIM_$1) $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o $(B_$1)/pic/solutions/$2.o $(call ref_so_deps_$1,$2)
	@mkdir -p $$(@D)
	$$(call link_so_$1,$2,$$(filter %/worker_loop_untrusted.o %/shim_untrusted.o %/solutions/$2.o,$$^))
	$$(call ref_so_check_$1,$2)

$(B_$1)/$$(STUDENT_TAG)/$2/student.so: $$(call student_src_dep,$2) $$(call student_helpers,$1,$2) $(SHIM_$1) $(B_$1)/pic/$(call lab_grader,$2)/shim_untrusted.o $$(if $$(call is_ref,$2),$(B_$1)/pic/solutions/$2.o) $(CONTRACTS) $$(call solution_headers,$2) grader/make/vet.sh grader/make/build_student.sh $(SANDBOX_RUN) $(call student_deps_$1,$2) | student-src-$2 $(student_order_$1)
	@mkdir -p $$(@D)
	@rm -f $$@ $$@.o $$@.o.raw $$(@D)/source.cu
	$$(if $$(call is_ref,$2),$$(Q_VET)cp $$(call student_src,$2) $$(@D)/source.cu && cp $(B_$1)/pic/solutions/$2.o $$@.o.raw && $$(student_vet_env_$1) grader/make/vet.sh $2 $$@.o.raw $$@.o "$$(ENTRY_$2)" "$$(FORBID_$2)" "$$(call student_sass_$1,$2)"; s=$$$$?; rm -f $$@.o.raw; exit $$$$s,\
	$$(Q_NVCC)CUDA_HOME=$$(CUDA_HOME) $$(call student_cached,$1) $$(call sandboxed_build,$2,$$@.o) $$(student_sandbox_$1) \
	    -- sh ./build_student.sh $2 $$(call student_box,$2) student.o "$$(ENTRY_$2)" "$$(FORBID_$2)" "$$(call student_sass_$1,$2)" "$$(call student_ptx_$1,$2)" \
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
# What the last compile of each lab's student file was given of the student's tree
# (sandbox-run's student.deps: STUDENT_DEPS_name, the files, and STUDENT_DEPS_name_ABSENT, the
# names included that were not there; paths only, written by sandbox-run from its own walk of
# the tree, never by the compile). One file per mode and lab, each read in a variable of its
# own mode's (make reads the record, never a rule: a path in it is a file name or nothing).
# The student's object depends on each of those files that is still there; one gone, or a name
# that was not there and now is, builds it again (student-rebuild: always out of date).
define read_student_deps
-include $(B_$1)/$$(STUDENT_TAG)/$2/student.deps
STUDENT_DEPS_$1_$2 := $$(STUDENT_DEPS_$2)
STUDENT_DEPS_$1_$2_ABSENT := $$(STUDENT_DEPS_$2_ABSENT)
STUDENT_DEPS_$2 :=
STUDENT_DEPS_$2_ABSENT :=
endef
$(foreach m,$(BUILD_MODES),$(foreach n,$(LAB_NAMES),$(eval $(call read_student_deps,$(m),$(n)))))
student_helpers = $(foreach f,$(STUDENT_DEPS_$(1)_$(2)),$(or $(wildcard $(f)),student-rebuild)) \
    $(if $(wildcard $(STUDENT_DEPS_$(1)_$(2)_ABSENT)),student-rebuild)
.PHONY: student-rebuild
student-rebuild:
$(foreach m,$(BUILD_MODES),$(foreach n,$(LAB_NAMES),$(eval $(call lab_rules,$(m),$(n)))))
# The one harness of each mode (every lab's: it loads a lab's problem.so).
$(GPU)/.grader/harness: $(HARNESS_DEPS_gpu)
	@mkdir -p $(@D)
	$(link_harness_gpu)
ifneq ($(EMUB),)
$(EMUB)/.grader/harness: $(HARNESS_DEPS_emu)
	@mkdir -p $(@D)
	$(link_harness_emu)
endif
$(foreach n,$(LAB_NAMES),$(eval $(call steps_rules,$(n))))

# Everything one lab needs to be graded, in this mode. The worker program under emulation
# carries the emulator.
WORKER = $(if $(filter emu,$(MODE)),$(BUILD)/emu/worker-emu,$(BUILD)/gpu/worker)
lab_pieces = $(LABB)/$(1)/harness $(LABB)/$(1)/problem.so $(LABB)/$(1)/reference.so $(STUDENT_OBJS)/$(1)/student.so $(WORKER)
# What every lab shares (make grade builds it before it says the grader is built; the labs'
# own builds run beside it): the common objects, the shims' dispatch, the worker, the compile
# sandbox, the lab manifest and, where a lab reads machine code, cuobjdump.
GRADER_PIECES_gpu = $(GPU_COMMON) $(RUNNER_HOST_OBJS) $(GPU)/.grader/harness $(GPU_SHIM) $(BUILD)/gpu/worker \
    $(if $(strip $(foreach n,$(LAB_NAMES),$(FORBID_SASS_$(n)))),$(CUOBJDUMP))
GRADER_PIECES_emu = $(EMU_REWRITE) $(EMU_LIB) $(EMU_COMMON) $(EMU_HOST_OBJS) $(EMUB)/.grader/harness $(EMUB)/pic/grader/worker/worker_loop_untrusted.o \
    $(EMUB)/worker-emu $(EMU_WORKER_OBJS)
