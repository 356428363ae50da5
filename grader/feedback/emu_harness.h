/* emu_harness.h - TRUSTED, NO GPU (the driver's side): a lab's harness built for the CPU
 * emulator, run as a process of the driver for help beside the grade (the WHERE count,
 * where.h; a fault's rerun, fault_rerun.h). Under the emulator that is grading's own build; on
 * a GPU, the emulated build make made beside it. Its workers run under grading's whole policy,
 * with the emulated build's folders hidden in place of the graded build's. */
#ifndef GRADER_FEEDBACK_EMU_HARNESS_H
#define GRADER_FEEDBACK_EMU_HARNESS_H

#include "../sandbox/sandbox.h"
#include "../wire/records.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An emulated process's resident memory, at most (as make explain's): twice the emulated
 * device's 2 GiB, where one call at the emulator's size needs a few hundred MiB. */
#define WHERE_MEM_MIB 4096

/* The emulated build a run uses, and grading's places. */
typedef struct emu_build {
    const char *mode;         /* the graded build's: "gpu" or "emu" */
    const char *labdir;       /* the emulated <lab>/harness and reference.so */
    const char *student_objs; /* the emulated <lab>/student.so and source.cu */
    const char *worker;       /* the emulated worker program */
    sandbox_places hidden;    /* grading's places, hidden from student code */
} emu_build;

/* Run argv (no shell) with stdin from in_path (NULL: /dev/null), stdout and stderr to out_path
 * and err_path (truncated; err_path appended to when `append_err`), `env` (NAME=value strings, NULL-ended)
 * added; emulated: in the harness's view of its own (sandbox_harness_view), with a TMPDIR of
 * its own that this process removes when it ends (its workers' scratch folders lie there where
 * namespaces are refused, and a harness killed cannot remove them: as harness_start's). Waits
 * at most `left` seconds, then kills it whole. Returns its wait status, -1 if it could not be
 * started, -2 if it ran out of time. */
int run_counted(char *const argv[], char *const env[], const char *in_path,
                       const char *out_path, const char *err_path, int append_err, int emulated,
                       double left);

/* The environment of the lab's emulated harness (the WHERE count, a fault's rerun) into env
 * (NULL-ended, its strings in asan and sms_env): its address sanitizer held to WHERE_MEM_MIB
 * and, on a GPU, the emulated device given this GPU's SM count, so that grids sized by it, and
 * their waves, are this GPU's (make explain's CUDA_EMU_SMS). */
void emu_env(const emu_build *o, const record *dev, char asan[256], char sms_env[32],
                    char *env[3]);

/* What the emulated build's workers never see: grading's places, with the emulated build's
 * folders in place of the graded build's. */
sandbox_places emu_places(const emu_build *o);

#ifdef __cplusplus
}
#endif
#endif
