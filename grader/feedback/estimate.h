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
 * line each ("check C <tab> ratio <tab> your bound <tab> the reference's bound", and a line that
 * says why it is not to be given where it is not: estimate.awk's tsv mode), from the harness's
 * sections and the emulator's counts of a lab (the WHERE count's files) and, where not NULL, the
 * counts of its second size (the harness's --second-counts; with none, no estimate is given)
 * and the student's file as compiled (source: one that names CUDA_EMU gets none; NULL: none),
 * with the lab's explain table (it says whether the lab is estimated from the engines'
 * timeline) and the feedback folder that holds the awk programs. Fills argv (NULL-terminated,
 * at most 40) with pointers into *store. Returns 0, or -1 when GPU_PROFILE names no GPU. */
typedef struct estimate_command {
    char vars[11][1200];
    char *argv[40];
} estimate_command;
int estimate_command_make(estimate_command *store, const char *tools, const char *table,
                          const char *sections, const char *counts, const char *second,
                          const char *source);

/* The estimate's own error, as a factor: where it agrees with a GPU's measurement, it is within
 * this of it (the agreement table's "within 25%": tests/gpu/results/estimate-vs-h200.txt). An
 * estimate this close to the mark says on which side of it a GPU would measure no better than
 * a guess, and the line says so. */
#define ESTIMATE_ERROR 1.25

/* Where `ratio` lies against the mark `threshold`, in words: above, below, or (within
 * ESTIMATE_ERROR of it) just above or below, on either side of which a GPU may measure it. */
const char *estimate_side(double ratio, double threshold);

/* 1 when `limits` (estimate-limits.tsv) lists lab_number: the lab gets no estimate, and `why`
 * holds its reason in a student's words (its second column); else 0 and "". */
int estimate_none(const char *limits, const char *lab_number, char *why, size_t len);

/* The estimate of check `check` from such a file (as estimate_command_make's awk wrote it), as
 * one line for the student: the ratio, the mark's side, what bounds each call, and that it is an
 * estimate. No number where there is to be none: for a lab that `limits` lists (the file is not
 * read: it may be NULL), "none for this lab" and why; where the awk gave none (the two sizes
 * counted differ, the second is missing, or the call moved less data than the reference's),
 * "none" and the figures that say why (or that the file compiles other code for the emulator);
 * when GPU_PROFILE names no GPU, that. "" when the file
 * has nothing for that check. */
void estimate_line(const char *file, const char *limits, int check, double threshold,
                   const char *lab_number, char *line, size_t len);

#endif
