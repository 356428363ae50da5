# grader/serve/serve.mk - the course server (grader/serve/README.md).
#
#   make roster ROSTER=students.csv COURSE=dir [REVOKE=name]   tokens into dir/tokens.csv (0600)
#   make serve COURSE=dir [PORT=8080] [ADDR=127.0.0.1] [TLS_CERT=.. TLS_KEY=..] [DEADLINE=..]
#              [SLURM=n [SLURM_GPU=0|1] [SLURM_PARTITION=p]]   grading through srun
#   make submit LAB=06 [SERVER=url TOKEN=token] [STUDENT=dir]  the report make grade prints there
#   make submit-status [SERVER=url TOKEN=token]
#   make serve-export COURSE=dir [OUT=dir]   each student's best, in the batch's gradebook formats
#
# The server's programs build against GNU libmicrohttpd, SQLite and jansson, which
# grader/serve/deps.sh installs first (and says so); make submit needs only python3 and the
# packer, built from the grader's own C.

SERVE_BIN    := $(BUILD)/host/serve-course
SERVE_ROSTER := $(BUILD)/host/serve-roster
SERVE_EXPORT := $(BUILD)/host/serve-export
SERVE_PACK   := $(BUILD)/host/serve-pack
SERVE_KEEPER := $(BUILD)/host/serve-keeper
SERVE_FLAGS  := $(BUILD)/serve/flags
SERVE_O      := $(BUILD)/host/grader/serve
COURSE       ?=
PORT         ?= 8080
SERVER       ?=
TOKEN        ?=
SERVE_LIBS   := -lmicrohttpd -lsqlite3 -ljansson -lpthread -lm

# What the server builds against, installed first (deps.sh says what, and how)
$(SERVE_FLAGS): grader/serve/deps.sh
	@mkdir -p $(@D)
	@grader/serve/deps.sh $(BUILD) > $@.tmp && tail -n 1 $@.tmp > $@ && rm -f $@.tmp

$(SERVE_O)/serve.o $(SERVE_O)/store.o $(SERVE_O)/grading.o $(SERVE_O)/status.o $(SERVE_O)/roster.o $(SERVE_O)/export.o: \
$(SERVE_O)/%.o: grader/serve/%.c grader/serve/serve.h grader/serve/upload.h $(SERVE_FLAGS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(CFLAGS) -Igrader $$(cat $(SERVE_FLAGS)) -c $< -o $@
$(SERVE_O)/upload.o $(SERVE_O)/pack.o: grader/serve/upload.h

# Messages and paths are cut to their buffers on purpose (snprintf), never overflowed.
$(SERVE_O)/%.o: CFLAGS += -Wno-format-truncation

# The labs' tables and their lookup only: common/json.o (the grader's own JSON writer) would
# clash with jansson's names.
SERVE_BASE := $(BUILD)/host/labs_registry.o $(TABLE_OBJS) $(BUILD)/host/grader/plan/lab_select.o \
              $(BUILD)/host/grader/plan/started.o $(BUILD)/host/common/sizing.o $(BUILD)/host/common/text.o \
              $(BUILD)/host/common/device_info.o $(BUILD)/host/common/util.o
$(SERVE_BIN): $(SERVE_O)/serve.o $(SERVE_O)/store.o $(SERVE_O)/grading.o $(SERVE_O)/status.o $(SERVE_O)/upload.o $(SERVE_BASE)
	$(Q_LINK)$(CC) $(CFLAGS) $(filter %.o,$^) $$(cat $(SERVE_FLAGS)) $(SERVE_LIBS) -o $@
$(SERVE_ROSTER): $(SERVE_O)/roster.o $(SERVE_O)/store.o $(SERVE_BASE)
	$(Q_LINK)$(CC) $(CFLAGS) $(filter %.o,$^) $$(cat $(SERVE_FLAGS)) $(SERVE_LIBS) -o $@
# (the batch's exports, on the grader's own JSON: no jansson in this program, whose names clash)
$(SERVE_EXPORT): $(SERVE_O)/export.o $(SERVE_O)/store.o $(SERVE_BASE) $(EXPORTS_OBJS) \
                 $(BUILD)/host/common/json_read.o $(BUILD)/host/common/json.o
	$(Q_LINK)$(CC) $(CFLAGS) $(filter %.o,$^) $$(cat $(SERVE_FLAGS)) -lsqlite3 -lm -o $@
$(SERVE_KEEPER): $(SERVE_O)/keeper.o $(BUILD)/host/grader/wire/stop.o
	$(Q_LINK)$(CC) $(CFLAGS) $^ -o $@
$(SERVE_PACK): $(SERVE_O)/pack.o $(SERVE_O)/upload.o $(BUILD)/host/grader/sandbox/helper_files.o $(SERVE_BASE)
	$(Q_LINK)$(CC) $(CFLAGS) $^ -lm -o $@

.PHONY: roster serve submit submit-status serve-export serve-programs
serve-programs: $(SERVE_BIN) $(SERVE_ROSTER) $(SERVE_EXPORT) $(SERVE_PACK) $(SERVE_KEEPER)

need_course = $(if $(COURSE),,$(error make $@ needs COURSE=dir: the course's folder (its tokens, queue and reports)))
roster: $(SERVE_ROSTER)
	$(need_course)
	@$(if $(REVOKE),$(SERVE_ROSTER) '$(COURSE)' --revoke '$(REVOKE)',$(if $(ROSTER),$(SERVE_ROSTER) '$(COURSE)' '$(ROSTER)',echo "make roster needs ROSTER=students.csv (a header line, then one student's name a line), or REVOKE=name" >&2; exit 2))

# The server grades with make grade: what every grading shares is built once before it listens
# (make grade-batch's batch-prebuild: the driver, the worker, each lab's harness and reference).
serve: $(SERVE_BIN) $(SERVE_KEEPER)
	$(need_course)
	@$(MAKE) -s --no-print-directory batch-prebuild $(if $(EMU),EMU=$(EMU))
	@exec env COURSE_PORT='$(PORT)' BUILD='$(BUILD)' ADDR='$(ADDR)' TLS_CERT='$(TLS_CERT)' TLS_KEY='$(TLS_KEY)' \
	    DEADLINE='$(DEADLINE)' SEED='$(SEED)' EMU='$(EMU)' GPUS='$(GPUS)' JOBS='$(JOBS)' \
	    SERVE_SLURM='$(SLURM)' SERVE_SLURM_GPU='$(SLURM_GPU)' SERVE_SLURM_PARTITION='$(SLURM_PARTITION)' \
	    $(SERVE_BIN) '$(COURSE)' '$(PORT)'

submit: $(SERVE_PACK)
	@SERVER='$(SERVER)' TOKEN='$(TOKEN)' SUBMIT_LOGS='$(BUILD)/submit' python3 grader/serve/submit.py submit $(SERVE_PACK) '$(STUDENT)' '$(LAB)'

submit-status:
	@SERVER='$(SERVER)' TOKEN='$(TOKEN)' python3 grader/serve/submit.py status

serve-export: $(SERVE_EXPORT)
	$(need_course)
	@$(SERVE_EXPORT) '$(COURSE)' '$(if $(filter command line,$(origin OUT)),$(OUT),$(COURSE)/export)'
