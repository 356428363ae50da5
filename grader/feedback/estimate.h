/* estimate.h - the speed a check would measure on a named GPU, estimated from the CPU emulator's
 * counts (grader/feedback/estimate.awk has the model): make grade prints it under each speed
 * check it cannot time (no GPU). Help, not grading: it earns no point and decides no verdict. */
#ifndef ESTIMATE_H
#define ESTIMATE_H

#include <stddef.h>

#include "../../common/gpu_profiles.h"

/* The GPU the estimate is for: GPU_PROFILE's key (make profiles lists them), a T4 when unset.
 * NULL for a key that names no profile. */
const gpu_profile *estimate_gpu(void);

/* Its DRAM bandwidth in bytes per second: the memory clock (as cudaDevAttrMemoryClockRate
 * reports it) x 2 transfers a clock x the bus width in bytes, the datasheet's figure. */
double estimate_dram_bps(const gpu_profile *g);

/* The awk command that writes the estimate of every speed check to its standard output, one
 * line each ("check C <tab> ratio <tab> your bound <tab> the reference's bound"), from the
 * harness's sections and the emulator's counts of a lab (the WHERE count's files), with the
 * lab's explain table (it says whether the lab is estimated from the engines' timeline) and the
 * feedback folder that holds the awk programs. Fills argv (NULL-terminated, at most 40) with
 * pointers into *store. Returns 0, or -1 when GPU_PROFILE names no GPU. */
typedef struct estimate_command {
    char vars[9][1200];
    char *argv[40];
} estimate_command;
int estimate_command_make(estimate_command *store, const char *tools, const char *table,
                          const char *sections, const char *counts);

/* The estimate of check `check` from such a file (as estimate_command_make's awk wrote it), as
 * one line for the student: the ratio, the mark's side, what bounds each call, and that it is an
 * estimate; for a lab that `limits` (estimate-limits.tsv) lists, first that it is not to be
 * trusted there, and why; when GPU_PROFILE names no GPU, that. "" when the file has none for that
 * check. */
void estimate_line(const char *file, const char *limits, int check, double threshold,
                   const char *lab_number, char *line, size_t len);

#endif
