/* verdict.h - the trusted grader's decisions, separated from its main() so they can be tested.
 *
 * The driver never runs student code itself: it starts the lab's harness as a child process
 * (grader/wire/child.h), reads the records the harness wrote for a check (read_records,
 * grader/wire/records.h), and decides here (decide_process, decide_check) from the lab's
 * table, the thresholds in force and those raw facts alone. Nothing here starts a process,
 * prints or writes a report. */
#ifndef GRADER_DECIDE_VERDICT_H
#define GRADER_DECIDE_VERDICT_H

#include "decision.h"
#include "../lab.h"
#include "../wire/child.h"
#include "../wire/records.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a lab's harness said in its greeting, the first two lines it writes, before it reads
 * a command and so before any student code can be in its process (the fallback loads the
 * student's object at its first call): an `isolation` record and a `device` record. The
 * driver reads them once per harness process, and labels the run from them, from what it
 * asked for (--isolation, --require-isolation) and from its own look at the sandbox; never
 * from a check's records. */
typedef struct greeting {
    int heard;         /* 1 once a harness of this lab greeted */
    int isolated;      /* 1: student code runs in sandboxed workers, as the greeting said and
                          the driver asked and saw; 0: it runs in the harness's process (the
                          fallback), or the greeting was not understood */
    char sandbox[16];  /* "namespaces", "landlock", or "none" */
    char detail[256];  /* why (the harness's words, from before student code, or the driver's) */
    record device;     /* the device as the harness found it (type "" until heard; free with
                          record_free) */
} greeting;

/* Take line `n` (0: the isolation record, 1: the device record) of a fresh harness's
 * greeting into g. `asked` is 1 when the driver asked for isolation, `sandbox_seen` 1 when
 * the driver itself finds a sandbox on this machine: without either, the run is not isolated
 * whatever the line says. */
void greeting_take(greeting *g, int n, const char *line, int asked, int sandbox_seen);

/* Decide from how the harness ended alone (CUDA error, crash, hang, bad exit, garbage, no
 * `end` record); returns 1 and fills d if that decided it, 0 if the records must be read. */
int decide_process(const lab_info *lab, const child_outcome *o, const record_list *l,
                   check_decision *d);

/* Decide check `c` of `lab` from how its harness ended and what it wrote. `threshold` is the
 * pass mark in force for speed. */
void decide_check(const lab_info *lab, const lab_check *c, double threshold,
                  const child_outcome *o, const record_list *l, check_decision *d);

/* Check c's name as the run shows it. On a GPU, and for a check the emulator runs at its
 * table size, the table's name. Under the CPU emulator a check with an emu_size names the size
 * it runs: each of the table size's numbers in the name becomes the emulated one (a byte count
 * "N MiB" scaled with it), then "(on a GPU: ...)" keeps the GPU's, so no one reads a size that
 * was not run: "n = 524309: prime, large (on a GPU: n = 100000007)". */
void check_name_as_run(const lab_check *c, int emulated, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
